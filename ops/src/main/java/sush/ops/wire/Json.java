package sush.ops.wire;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import sush.projections.fold.JobStatus;
import sush.projections.fold.StatusProjection;
import sush.projections.message.Message;
import tools.jackson.databind.json.JsonMapper;

/** The JSON of the API and the CLI: one mapper, and the shapes both sides share. */
public final class Json {
    public static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Json() {
    }

    public static String lower(Enum<?> e) {
        return e.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** One reporter's status of one job, with what its report said. */
    public static Map<String, Object> status(JobStatus status, Message m) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", lower(status));
        if (m instanceof Message.JobStarted) {
            times(out, ((Message.JobStarted) m).startedAtMs(), null, null);
        } else if (m instanceof Message.JobStopped) {
            Message.JobStopped s = (Message.JobStopped) m;
            if (s.exitCode() != null) {
                out.put("exit_code", s.exitCode());
            } else {
                out.put("process_error", s.processError());
            }
            out.put("stdout_bytes", s.stdoutBytes());
            out.put("stdout_sha3", HexFormat.of().formatHex(s.stdoutSha3()));
            out.put("stderr_bytes", s.stderrBytes());
            out.put("stderr_sha3", HexFormat.of().formatHex(s.stderrSha3()));
            times(out, s.startedAtMs(), s.endedAtMs(), s.durationMs());
        } else if (m instanceof Message.JobErrored) {
            Message.JobErrored e = (Message.JobErrored) m;
            out.put("error", lower(e.kind()));
            out.put("detail", e.detail());
            if (e.signal() != 0) {
                out.put("signal", e.signal());
            }
            times(out, e.startedAtMs(), e.endedAtMs(), e.durationMs());
        } else if (m instanceof Message.JobSkipped) {
            out.put("reason", lower(((Message.JobSkipped) m).reason()));
        } else if (m instanceof Message.JobConflict) {
            out.putAll(conflict((Message.JobConflict) m));
        }
        return out;
    }

    /**
     * {@code Skipped{Conflict}}: {@code reason} conflict, and the successors of the request the
     * reporter holds at the position ({@code held}) and of the one it refused ({@code refused}).
     */
    public static Map<String, Object> conflict(Message.JobConflict c) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("reason", "conflict");
        out.put("held", c.held().codephrase());
        out.put("refused", c.refused().codephrase());
        return out;
    }

    /** Conflicts by reporter (see {@link #conflict}). */
    public static Map<String, Object> conflicts(Map<String, Message.JobConflict> byReporter) {
        Map<String, Object> out = new java.util.TreeMap<>();
        byReporter.forEach((board, c) -> out.put(board, conflict(c)));
        return out;
    }

    /**
     * The reporting sled's times, when it keeps them: {@code sled_started_at} and
     * {@code sled_ended_at} by that sled's own wall clock (ISO-8601, UTC; sleds' clocks may
     * disagree, and nothing is ordered by them), {@code duration_ms} by its monotonic clock.
     */
    private static void times(Map<String, Object> out, Long startedAt, Long endedAt, Long durationMs) {
        if (startedAt != null) {
            out.put("sled_started_at", java.time.Instant.ofEpochMilli(startedAt).toString());
        }
        if (endedAt != null) {
            out.put("sled_ended_at", java.time.Instant.ofEpochMilli(endedAt).toString());
        }
        if (durationMs != null) {
            out.put("duration_ms", durationMs);
        }
    }

    public static Map<String, Object> statuses(Map<String, StatusProjection.Entry> byReporter) {
        Map<String, Object> out = new java.util.TreeMap<>();
        byReporter.forEach((board, e) -> out.put(board, status(e.status(), e.message())));
        return out;
    }
}
