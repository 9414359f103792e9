package sush.ops.audit;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import sush.ops.wire.Answers;

/**
 * What {@code sush audit export} writes and {@code sush audit verify} reads (issue 40, D-060): one
 * session's grant (signed ordering; null in a causal rack), every signed request and burn of its
 * chain as the operator kept them (else as the sled holds them), every sled's receipts, and the
 * sleds' certificates by baseboard. Everything in it is checked offline against the rack CA and
 * the signer keys the verifier trusts; nothing in it is trusted by itself.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Bundle(String format, @JsonProperty("session_id") String sessionId, Map<String, Object> grant,
        List<Map<String, Object>> requests, List<String> burns, List<Answers.Receipt> receipts,
        Map<String, String> certificates) {
    /** The format this build writes and reads. */
    public static final String FORMAT = "sush-audit-v1";

    /** This bundle with {@code other} receipts. */
    public Bundle withReceipts(List<Answers.Receipt> other) {
        return new Bundle(format, sessionId, grant, requests, burns, other, certificates);
    }
}
