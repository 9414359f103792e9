package sush.projections.message;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the plain form of a format-1 envelope straight from its bytes: a definite three-item
 * array, version 1, a known kind, and a definite flat map whose names and texts are ASCII and
 * whose values are integers within 64 bits, byte strings, booleans or null. That is every
 * message this codec writes, so every delivered message of a healthy rack, and the fold reads
 * each one (D-018).
 *
 * <p>It decides nothing. On anything outside that form (another version or kind, indefinite
 * lengths, tags, floats, non-ASCII text, a repeated name, trailing bytes, truncation) it
 * answers {@code null} and the Jackson parser reads the bytes, so accepted input, decoded
 * values and error messages are exactly the Jackson path's. A differential test holds the
 * two to that.
 */
final class DirectReader {
    /** Kinds of format 1, as their ASCII bytes. */
    private static final String[] KINDS = {"session-start", "session-stop", "job-skip", "job-start", "job-stop",
        "announcement", "job-started", "job-stopped", "job-error", "job-skipped", "rack-error", "job-cancelled",
        "operator-login", "operator-revoked", "session-grant", "session-access", "job-conflict",
        "operator-unrevoked", "watermark", "job-skip-sled", "receipt"};
    /** Field names of format 1; read as these very strings (no allocation, identity compares). */
    private static final String[] NAMES = {"session", "acceptor", "sledNonce", "clientNonce", "starter", "by",
        "position", "job", "command", "target", "concurrent", "key", "algorithm", "signature", "baseboard",
        "software", "cubby", "exitCode", "processError", "stdoutBytes", "stdoutSha3", "stderrBytes", "stderrSha3",
        "error", "detail", "signal", "reason", "nonce", "ephemeral", "expires", "signer", "epoch", "startedAtMs",
        "endedAtMs", "durationMs", "api", "wallTimeMs", "outputBytes", "cpuSeconds", "addressSpaceBytes",
        "fileSizeBytes", "mode", "access", "held", "refused", "id", "lifts", "ordinal", "head", "resume", "resumeOrdinal",
        "waveSize", "maxFailures", "sled", "body"};
    private static final Table KIND_TABLE = new Table(KINDS);
    private static final Table NAME_TABLE = new Table(NAMES);

    /** Recently read short texts, by a hash of their bytes (see {@link #recent}). */
    private static final String[] RECENT = new String[1024];
    private static final int RECENT_MAX_CHARS = 64;
    /** Longest field name read here (with its head); format 1's are under 16 bytes. */
    static final int MAX_NAME_BYTES = 256;

    private final byte[] b;
    private int at;
    /** The table slot of the text {@link #text} read last, or -1 when it was not a known one. */
    private int lastSlot;

    private DirectReader(byte[] b) {
        this.b = b;
    }

    /** The kind and fields of {@code bytes}, or null when the Jackson parser must read them. */
    static Fields read(byte[] bytes) {
        return new DirectReader(bytes).envelope();
    }

    private Fields envelope() {
        // [1, kind, {...}]: 0x83 0x01, then a text head.
        if (b.length < 4 || b[0] != (byte) 0x83 || b[1] != 0x01) {
            return null;
        }
        at = 2;
        String kind = text(KIND_TABLE, false);
        if (kind == null || at >= b.length) {
            return null;
        }
        int head = b[at++] & 0xff;
        if (head >>> 5 != 5 || (head & 0x1f) > 23) {
            return null;
        }
        int count = head & 0x1f;
        Fields fields = new Fields(kind, count);
        // Repeats are found without comparing strings: known names by their table slot, and
        // only names outside the table (rare) by a full check.
        long seen = 0;
        for (int i = 0; i < count; i++) {
            int nameStart = at;
            String name = text(NAME_TABLE, true);
            // Long names go to Jackson, which bounds them (50,000 by default) and must decide.
            if (name == null || at - nameStart > MAX_NAME_BYTES) {
                return null;
            }
            int slot = lastSlot;
            boolean fresh = slot >= 0 ? (seen & (1L << slot)) == 0 : true;
            seen |= slot >= 0 ? 1L << slot : 0;
            Object value = value();
            if (value == null || !(slot >= 0 ? fresh && fields.addNew(name, value) : fields.add(name, value))) {
                return null;
            }
        }
        return at == b.length ? fields : null;
    }

    /**
     * A definite ASCII text: one of {@code known} (that very string), else a new string when
     * {@code othersToo}; null when it is not such a text or not known.
     */
    private String text(Table known, boolean othersToo) {
        if (at >= b.length || (b[at] & 0xff) >>> 5 != 3) {
            return null;
        }
        long length = length();
        if (length < 0 || length > b.length - at) {
            return null;
        }
        int n = (int) length;
        int start = at;
        for (int i = start; i < start + n; i++) {
            if (b[i] < 0) {
                return null;
            }
        }
        at += n;
        lastSlot = known == null ? -1 : known.find(b, start, n);
        if (lastSlot >= 0) {
            return known.strings[lastSlot];
        }
        return othersToo ? recent(start, n) : null;
    }

    /**
     * Short texts repeat (baseboards, starters, targets, software versions): a delivered
     * message reuses the string of an earlier one with the same bytes instead of holding its
     * own copy, which the projections would keep for every status. Strings are immutable, so
     * the table may be read and written from any thread without locks: a lost race only
     * allocates a string.
     */
    private String recent(int start, int n) {
        if (n > RECENT_MAX_CHARS) {
            return new String(b, start, n, StandardCharsets.ISO_8859_1);
        }
        // A hash of the length and the last three bytes: texts that repeat differ there (SLED07,
        // SLED12), and a collision only costs a new string.
        int h = n * 0x9E3779B1;
        for (int i = Math.max(start, start + n - 3); i < start + n; i++) {
            h = 31 * h + b[i];
        }
        int slot = (h ^ (h >>> 15)) & (RECENT.length - 1);
        String seen = RECENT[slot];
        if (seen != null && seen.length() == n) {
            int i = 0;
            while (i < n && seen.charAt(i) == b[start + i]) {
                i++;
            }
            if (i == n) {
                return seen;
            }
        }
        String fresh = new String(b, start, n, StandardCharsets.ISO_8859_1);
        RECENT[slot] = fresh;
        return fresh;
    }

    /** One field value, or null when it is not of the plain form. */
    private Object value() {
        if (at >= b.length) {
            return null;
        }
        int head = b[at] & 0xff;
        switch (head >>> 5) {
            case 0: {
                long n = length();
                return n < 0 ? null : Long.valueOf(n);
            }
            case 1: {
                long n = length();
                return n < 0 ? null : Long.valueOf(-1 - n);
            }
            case 2: {
                long n = length();
                if (n < 0 || n > b.length - at) {
                    return null;
                }
                byte[] v = Arrays.copyOfRange(b, at, at + (int) n);
                at += (int) n;
                return v;
            }
            case 3:
                return text(null, true);
            case 7:
                at++;
                return head == 0xf4 ? Boolean.FALSE : head == 0xf5 ? Boolean.TRUE : head == 0xf6 ? Fields.NULL : null;
            default:
                return null;
        }
    }

    /**
     * The argument of the head at {@link #at} (moving past it), or -1 when it is indefinite,
     * reserved, truncated or does not fit in 63 bits (the Jackson path reports those).
     */
    private long length() {
        int info = b[at++] & 0x1f;
        if (info < 24) {
            return info;
        }
        int bytes = info == 24 ? 1 : info == 25 ? 2 : info == 26 ? 4 : info == 27 ? 8 : 0;
        if (bytes == 0 || b.length - at < bytes) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < bytes; i++) {
            n = (n << 8) | (b[at++] & 0xff);
        }
        return n;
    }

    /** A small open-addressed table from ASCII bytes to the known string they spell. */
    private static final class Table {
        private static final int SLOTS = 64;
        private final String[] strings = new String[SLOTS];
        private final byte[][] bytes = new byte[SLOTS][];

        Table(String[] known) {
            for (String k : known) {
                byte[] kb = k.getBytes(StandardCharsets.US_ASCII);
                int slot = slot(kb, 0, kb.length);
                while (strings[slot] != null) {
                    slot = (slot + 1) & (SLOTS - 1);
                }
                strings[slot] = k;
                bytes[slot] = kb;
            }
        }

        /** The slot holding the string these bytes spell, or -1. */
        int find(byte[] b, int from, int n) {
            for (int slot = slot(b, from, n); strings[slot] != null; slot = (slot + 1) & (SLOTS - 1)) {
                if (bytes[slot].length == n && Arrays.equals(bytes[slot], 0, n, b, from, from + n)) {
                    return slot;
                }
            }
            return -1;
        }

        /** From the length and the first and last bytes: the known names differ there enough. */
        private static int slot(byte[] b, int from, int n) {
            int h = n == 0 ? 0 : n * 31 * 31 + b[from] * 31 + b[from + n - 1];
            return (h ^ (h >>> 6)) & (SLOTS - 1);
        }
    }
}
