package sush.ops.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /sessions}: the active session, who started it and through which sled, its ordering
 * ({@code signed} with the grant's epoch and signer, else {@code causal}), and the job id its
 * chain places next (null when unknown).
 */
public record ActiveSession(@JsonProperty("session_id") String sessionId, String starter, String acceptor,
        String ordering, @JsonInclude(JsonInclude.Include.NON_NULL) Long epoch,
        @JsonInclude(JsonInclude.Include.NON_NULL) String signer, @JsonProperty("next_job") String nextJob) {
}
