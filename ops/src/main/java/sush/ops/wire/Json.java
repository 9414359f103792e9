package sush.ops.wire;

import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import sush.projections.fold.JobStatus;
import sush.projections.fold.StatusProjection;
import sush.projections.message.Message;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON of the API and the CLI: one mapper, how the CLI reads an answer into the records both
 * sides share, and a job's statuses as those records.
 */
public final class Json {
    public static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Json() {
    }

    public static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Reads an answer of the API (or a part of one) into its record. Unknown fields are ignored:
     * a sled of a newer build may say more; a field it leaves out is null.
     */
    public static <T> T read(JsonNode n, Class<T> type) {
        return MAPPER.readerFor(type).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).readValue(n);
    }

    /** Reads statuses by reporting sled (a {@link StatusReport}'s or a {@link JobPage.Entry}'s), in their order. */
    public static Map<String, SledStatus> readStatuses(JsonNode n) {
        return MAPPER.readerForMapOf(SledStatus.class).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .readValue(n);
    }

    /** One reporter's status of one job, with what its report said. */
    public static SledStatus status(JobStatus status, Message m) {
        String name = lower(status);
        if (m instanceof Message.JobStarted) {
            return new SledStatus(name, null, null, null, null, null, null, null, null, null, null, null, null,
                    instant(((Message.JobStarted) m).startedAtMs()), null, null);
        } else if (m instanceof Message.JobStopped) {
            Message.JobStopped s = (Message.JobStopped) m;
            return new SledStatus(name, s.exitCode(), s.exitCode() != null ? null : s.processError(), s.stdoutBytes(),
                    HexFormat.of().formatHex(s.stdoutSha3()), s.stderrBytes(), HexFormat.of().formatHex(s.stderrSha3()),
                    null, null, null, null, null, null, instant(s.startedAtMs()), instant(s.endedAtMs()),
                    s.durationMs());
        } else if (m instanceof Message.JobErrored) {
            Message.JobErrored e = (Message.JobErrored) m;
            return new SledStatus(name, null, null, null, null, null, null, lower(e.kind()), e.detail(),
                    e.signal() != 0 ? e.signal() : null, null, null, null, instant(e.startedAtMs()),
                    instant(e.endedAtMs()), e.durationMs());
        } else if (m instanceof Message.JobSkipped) {
            return new SledStatus(name, null, null, null, null, null, null, null, ((Message.JobSkipped) m).detail(),
                    null, lower(((Message.JobSkipped) m).reason()), null, null, null, null, null);
        } else if (m instanceof Message.JobConflict) {
            Conflict c = conflict((Message.JobConflict) m);
            return new SledStatus(name, null, null, null, null, null, null, null, null, null, c.reason(), c.held(),
                    c.refused(), null, null, null);
        }
        return SledStatus.only(name);
    }

    /**
     * {@code Skipped{Conflict}}: {@code reason} conflict, and the successors of the request the
     * reporter holds at the position ({@code held}) and of the one it refused ({@code refused}).
     */
    public static Conflict conflict(Message.JobConflict c) {
        return new Conflict("conflict", c.held().codephrase(), c.refused().codephrase());
    }

    /** Conflicts by reporter (see {@link #conflict}). */
    public static Map<String, Conflict> conflicts(Map<String, Message.JobConflict> byReporter) {
        Map<String, Conflict> out = new TreeMap<>();
        byReporter.forEach((board, c) -> out.put(board, conflict(c)));
        return out;
    }

    /**
     * A time of the reporting sled, when it keeps them: {@code sled_started_at} and
     * {@code sled_ended_at} are by that sled's own wall clock (ISO-8601, UTC; sleds' clocks may
     * disagree, and nothing is ordered by them), {@code duration_ms} by its monotonic clock.
     */
    private static String instant(Long epochMs) {
        return epochMs == null ? null : Instant.ofEpochMilli(epochMs).toString();
    }

    /** Every reporter's status (see {@link #status}), by reporter. */
    public static Map<String, SledStatus> statuses(Map<String, StatusProjection.Entry> byReporter) {
        Map<String, SledStatus> out = new TreeMap<>();
        byReporter.forEach((board, e) -> out.put(board, status(e.status(), e.message())));
        return out;
    }
}
