package sush.ops.wire;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /jobs/{jid}/status}: a job's statuses by reporting sled, as the answering sled knows
 * them, and the conflicts those sleds reported (by reporter), when any.
 */
public record StatusReport(@JsonProperty("job_id") String jobId, Map<String, SledStatus> statuses,
        @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Conflict> conflicts,
        @JsonInclude(JsonInclude.Include.NON_NULL) WaveProgress waves) {
    public StatusReport(String jobId, Map<String, SledStatus> statuses, Map<String, Conflict> conflicts) {
        this(jobId, statuses, conflicts, null);
    }

    /**
     * A job in waves (issue 40): its wave size and failure budget, the wave held now (-1 when
     * every wave is done), the cubbies of it not done yet (what {@code job skip --sled} may skip),
     * the failures so far and whether the budget is spent.
     */
    public record WaveProgress(int size, @JsonProperty("max_failures") int maxFailures, int wave,
            List<Integer> awaiting, int failures, boolean spent) {
    }
}
