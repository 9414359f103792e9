package sush.ops.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One reporter's status of one job, with what its report said: an ended job's exit code (or the
 * error that kept its process from running) and its outputs' lengths and SHA3-256 hashes; an
 * error's kind, detail and signal; a skip's reason (a conflict's with the successors of the
 * request held and the one refused); and the reporting sled's times when it keeps them. Only
 * what the report says is there.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SledStatus(String status, @JsonProperty("exit_code") Integer exitCode,
        @JsonProperty("process_error") String processError, @JsonProperty("stdout_bytes") Long stdoutBytes,
        @JsonProperty("stdout_sha3") String stdoutSha3, @JsonProperty("stderr_bytes") Long stderrBytes,
        @JsonProperty("stderr_sha3") String stderrSha3, String error, String detail, Integer signal, String reason,
        String held, String refused, @JsonProperty("sled_started_at") String sledStartedAt,
        @JsonProperty("sled_ended_at") String sledEndedAt, @JsonProperty("duration_ms") Long durationMs) {

    /** A status of which the report says only {@code status} (queued, cancelled, interrupted). */
    static SledStatus only(String status) {
        return new SledStatus(status, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null);
    }
}
