package sush.ops.wire;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the API answers to a change it accepted (a login, a session started or stopped, a job
 * started, stopped or skipped, an access or a revocation), one record per answer: the ids of
 * what changed, gossiped to every sled.
 */
public final class Answers {
    private Answers() {
    }

    /** {@code POST /login/challenge}: a fresh nonce (base64) and how long it stays good. */
    public record Challenge(String nonce, @JsonProperty("expires_in_s") Long expiresInS) {
    }

    /** {@code POST /login}: the operator key's id, when the identity expires (epoch ms), the sled that accepted it. */
    public record LoggedIn(@JsonProperty("key_id") String keyId, Long expires, String acceptor) {
    }

    /**
     * {@code POST /iam/revoke/{kid}} (the identities it ended on the answering sled and the
     * revocation's id) and {@code POST /iam/unrevoke/{kid}} (the id of the revocation lifted).
     */
    public record Revocation(@JsonProperty("key_id") String keyId, Boolean revoked,
            @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("identities_ended_here")
            Integer identitiesEndedHere,
            @JsonInclude(JsonInclude.Include.NON_NULL) String revocation,
            @JsonInclude(JsonInclude.Include.NON_NULL) String lifted) {
    }

    /** {@code POST /sessions/start} and {@code POST /sessions/grant}: the session, and a grant's epoch. */
    public record SessionStarted(@JsonProperty("session_id") String sessionId,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long epoch) {
    }

    /** {@code POST /sessions/{sid}/stop}: the session is stopping. */
    public record SessionStopping(@JsonProperty("session_id") String sessionId, Boolean stopping) {
    }

    /** {@code POST /sessions/{sid}/skip/{jid}}: the position burnt; no job runs there. */
    public record PositionBurnt(@JsonProperty("session_id") String sessionId, String burnt) {
    }

    /** {@code POST /sessions/{sid}/access/{kid}}: what the key may now do on the session's interactive jobs. */
    public record AccessSet(@JsonProperty("session_id") String sessionId, @JsonProperty("key_id") String keyId,
            String access) {
    }

    /** {@code POST /jobs/{jid}/start}: the job, gossiped. */
    public record JobStarted(@JsonProperty("job_id") String jobId) {
    }

    /** {@code POST /jobs/{jid}/stop}: the job is stopping. */
    public record JobStopping(@JsonProperty("job_id") String jobId, Boolean stopping) {
    }

    /**
     * {@code GET /plan} (issue 40): what sled {@code sled} in {@code cubby} would do now with the
     * job asked: {@code verdict} run, wait, refuse or not-targeted, {@code reason}, its wave in a
     * job in waves, and the position its head stands at when it waits for earlier jobs.
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Plan(String sled, int cubby, String verdict, String reason, Integer wave,
            @JsonProperty("waiting_for") String waitingFor) {
    }

    /** A sled's signed receipt (D-060): its body as text and its signature, base64. */
    public record Receipt(String sled, String body, String signature) {
    }

    /** {@code GET /jobs/{jid}/receipts} or {@code GET /sessions/{sid}/receipts}: the receipts a sled holds. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Receipts(@JsonProperty("job_id") String jobId, @JsonProperty("session_id") String sessionId,
            java.util.List<Receipt> receipts) {
    }

    /**
     * {@code GET /trust} (issue 41): the signer keys this sled trusts now, those of its initial
     * list ({@code --trust}), those operators added and those they revoked (never trusted again).
     */
    public record Trust(List<String> trusted, List<String> initial, List<TrustEntry> added,
            List<TrustEntry> revoked) {
    }

    /** One change of the signer keys: the key, the change's id, the operator key that signed it. */
    public record TrustEntry(@JsonProperty("key_id") String keyId, String id, String by) {
    }

    /** {@code POST /trust}: the change, and whether it changed what this sled trusts. */
    public record TrustChanged(@JsonProperty("key_id") String keyId, String action, String id, Boolean changed) {
    }

    /** {@code GET /certificate}: a sled's certificate from its rack CA, PEM. */
    public record Certificate(String sled, String certificate) {
    }

    /** {@code POST /jobs/{jid}/skip-sled/{cubby}}: the starter skipped the part of the sled in that cubby. */
    public record SledPartSkipped(@JsonProperty("job_id") String jobId, int cubby) {
    }
}
