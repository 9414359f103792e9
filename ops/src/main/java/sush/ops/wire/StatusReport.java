package sush.ops.wire;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /jobs/{jid}/status}: a job's statuses by reporting sled, as the answering sled knows
 * them, and the conflicts those sleds reported (by reporter), when any.
 */
public record StatusReport(@JsonProperty("job_id") String jobId, Map<String, SledStatus> statuses,
        @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Conflict> conflicts) {
}
