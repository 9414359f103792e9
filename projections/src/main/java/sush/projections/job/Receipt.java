package sush.projections.job;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * What a sled signs, with its own key (the rack CA's certificate names it), about a job it
 * committed, ended or never ran (issue 40, D-060): proof of what ran that needs no trust in the
 * vendor. The body is text, one {@code name=value} line per field in a fixed order after the
 * line {@code sush-receipt-v1}; that text is what is signed, and it reads back to the same
 * receipt or not at all.
 *
 * <ul>
 * <li>{@link Kind#COMMIT}: the sled committed the job (its boundary record names it) as record
 * {@code sequence} of its life {@code life} (the process nonce the record was stored under, hex:
 * sequences count the records of one life); the request's {@code successor} says which request
 * it was.</li>
 * <li>{@link Kind#END}: the job ended there: {@code status} (stopped, error, interrupted), the
 * exit code or the error, and each output's length and SHA3-256.</li>
 * <li>{@link Kind#REFUSE}: it never runs there: {@code status} (skipped, cancelled, error) and
 * {@code reason}.</li>
 * </ul>
 */
public record Receipt(Kind kind, String rack, String sled, SessionId session, JobId job, JobId successor,
        String life, Long sequence, String status, Integer exitCode, String reason, Long stdoutBytes, byte[] stdoutSha3,
        Long stderrBytes, byte[] stderrSha3) {
    /** The first line of every receipt body. */
    public static final String HEADER = "sush-receipt-v1";
    /** Bound on a receipt body: its fields are short. */
    public static final int MAX_BODY_BYTES = 2048;

    /** What a receipt says of its job. */
    public enum Kind {
        COMMIT, END, REFUSE;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Receipt {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(rack, "rack");
        Objects.requireNonNull(sled, "sled");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(job, "job");
        for (String text : new String[] {rack, sled, status, reason}) {
            if (text != null && text.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
                throw new IllegalArgumentException("receipt fields are printable ASCII on one line: " + text);
            }
        }
        if (life != null && (life.isEmpty() || life.length() > 64 || !life.chars().allMatch(
                c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))) {
            throw new IllegalArgumentException("a life is lower-case hex of at most 32 bytes: " + life);
        }
    }

    /** A commit receipt. */
    public static Receipt commit(String rack, String sled, SessionId session, JobId job, JobId successor,
            String life, long sequence) {
        return new Receipt(Kind.COMMIT, rack, sled, session, job, successor, Objects.requireNonNull(life, "life"),
                sequence, null, null, null, null, null, null, null);
    }

    /** The body, as signed. */
    public byte[] body() {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        fields().forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private Map<String, String> fields() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("kind", kind.wire());
        f.put("rack", rack);
        f.put("sled", sled);
        f.put("session", session.codephrase());
        f.put("job", job.codephrase());
        put(f, "successor", successor == null ? null : successor.codephrase());
        put(f, "life", life);
        put(f, "sequence", sequence == null ? null : Long.toUnsignedString(sequence));
        put(f, "status", status);
        put(f, "exit_code", exitCode == null ? null : exitCode.toString());
        put(f, "reason", reason);
        put(f, "stdout_bytes", stdoutBytes == null ? null : stdoutBytes.toString());
        put(f, "stdout_sha3", stdoutSha3 == null ? null : HexFormat.of().formatHex(stdoutSha3));
        put(f, "stderr_bytes", stderrBytes == null ? null : stderrBytes.toString());
        put(f, "stderr_sha3", stderrSha3 == null ? null : HexFormat.of().formatHex(stderrSha3));
        return f;
    }

    private static void put(Map<String, String> f, String name, String value) {
        if (value != null) {
            f.put(name, value);
        }
    }

    /** A receipt from its body; anything but a body {@link #body()} writes is a {@link KeyException}. */
    public static Receipt parse(byte[] body) throws KeyException {
        if (body.length > MAX_BODY_BYTES) {
            throw new KeyException("a receipt of " + body.length + " bytes (at most " + MAX_BODY_BYTES + ")");
        }
        String text = new String(body, StandardCharsets.US_ASCII);
        String[] lines = text.split("\n", -1);
        if (lines.length < 2 || !lines[0].equals(HEADER) || !lines[lines.length - 1].isEmpty()) {
            throw new KeyException("not a receipt body (" + HEADER + " lines)");
        }
        Map<String, String> f = new LinkedHashMap<>();
        for (int i = 1; i < lines.length - 1; i++) {
            int eq = lines[i].indexOf('=');
            if (eq <= 0 || f.put(lines[i].substring(0, eq), lines[i].substring(eq + 1)) != null) {
                throw new KeyException("receipt line " + i + " is not one name=value: " + lines[i]);
            }
        }
        try {
            Receipt r = new Receipt(kind(f.get("kind")), need(f, "rack"), need(f, "sled"),
                    SessionId.parse(need(f, "session")), JobId.parse(need(f, "job")),
                    f.containsKey("successor") ? JobId.parse(f.get("successor")) : null, f.get("life"),
                    f.containsKey("sequence") ? Long.parseUnsignedLong(f.get("sequence")) : null, f.get("status"),
                    f.containsKey("exit_code") ? Integer.valueOf(f.get("exit_code")) : null, f.get("reason"),
                    f.containsKey("stdout_bytes") ? Long.valueOf(f.get("stdout_bytes")) : null,
                    f.containsKey("stdout_sha3") ? HexFormat.of().parseHex(f.get("stdout_sha3")) : null,
                    f.containsKey("stderr_bytes") ? Long.valueOf(f.get("stderr_bytes")) : null,
                    f.containsKey("stderr_sha3") ? HexFormat.of().parseHex(f.get("stderr_sha3")) : null);
            if (!java.util.Arrays.equals(r.body(), body)) {
                throw new KeyException("a receipt body not in its canonical form");
            }
            return r;
        } catch (IdException | IllegalArgumentException e) {
            throw new KeyException("a malformed receipt field: " + e.getMessage());
        }
    }

    private static String need(Map<String, String> f, String name) throws KeyException {
        return Optional.ofNullable(f.get(name)).orElseThrow(() -> new KeyException("a receipt without " + name));
    }

    private static Kind kind(String wire) throws KeyException {
        for (Kind k : Kind.values()) {
            if (k.wire().equals(wire)) {
                return k;
            }
        }
        throw new KeyException("a receipt of no kind " + wire);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Receipt && java.util.Arrays.equals(((Receipt) o).body(), body());
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(body());
    }
}
