package sush.ops.wire;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code GET /jobs}: a page of the jobs a sled knows, newest first, with how many matched in all. */
public record JobPage(Integer total, Integer offset, Integer limit, List<Entry> jobs) {

    /**
     * One job: its id, its session (null when unknown there) and every sled's status of it; for a
     * job in waves (issue 40) where they stand, when the sled holds its request.
     */
    public record Entry(@JsonProperty("job_id") String jobId, @JsonProperty("session_id") String sessionId,
            Map<String, SledStatus> statuses,
            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
            StatusReport.WaveProgress waves) {
        public Entry(String jobId, String sessionId, Map<String, SledStatus> statuses) {
            this(jobId, sessionId, statuses, null);
        }
    }
}
