package sush.ops.wire;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code GET /iam}: the identities logged in at a sled, and the operators it knows with whether each is revoked. */
public record Iam(List<Identity> identities, List<Operator> operators) {

    /** A live identity: its operator key, comment, the sled that accepted its login, its expiry and last use (ms). */
    public record Identity(@JsonProperty("key_id") String keyId, String comment, String acceptor, Long expires,
            @JsonProperty("last_used") Long lastUsed) {
    }

    /** An operator of the sled's operators file: its key's id and type, comment, and whether it is revoked. */
    public record Operator(@JsonProperty("key_id") String keyId, String type, String comment, Boolean revoked) {
    }
}
