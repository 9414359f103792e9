package sush.ops.wire;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code GET /jobs}: a page of the jobs a sled knows, newest first, with how many matched in all. */
public record JobPage(Integer total, Integer offset, Integer limit, List<Entry> jobs) {

    /** One job: its id, its session (null when unknown there) and every sled's status of it. */
    public record Entry(@JsonProperty("job_id") String jobId, @JsonProperty("session_id") String sessionId,
            Map<String, SledStatus> statuses) {
    }
}
