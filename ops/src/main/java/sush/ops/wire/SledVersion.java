package sush.ops.wire;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /version}: which sled answers (baseboard, cubby), its build ({@code software} as
 * announced, {@code version} and {@code commit}), its universe, the rack's ordering, the rack's
 * id (clients file the grants and chains they keep under it), how it contains what a job starts
 * and how a job's first process gets its own session.
 */
public record SledVersion(String baseboard, Integer cubby, String software, String version, String commit,
        String network, String ordering, @JsonProperty("rack_id") String rackId, String containment,
        @JsonProperty("job_sessions") String jobSessions) {
}
