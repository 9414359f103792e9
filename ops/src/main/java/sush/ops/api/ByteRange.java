package sush.ops.api;

import java.util.Optional;

/**
 * One {@code Range: bytes=...} request header against a representation of {@code length} bytes
 * (RFC 9110 section 14.1.2), in longs. A single range only; several ranges, another unit or bad
 * syntax are ignored (the whole file is served, as the RFC allows). A satisfiable range is
 * clamped to the file; an unsatisfiable one is a 416.
 */
public record ByteRange(long first, long last) {
    /** What a Range header asks of this file. */
    public sealed interface Ask {
        /** Serve the whole file (no Range, or one to ignore). */
        record Whole() implements Ask {
        }

        /** Serve these bytes (206). */
        record Part(ByteRange range) implements Ask {
        }

        /** No byte of the file is in the range (416). */
        record Unsatisfiable() implements Ask {
        }
    }

    public long length() {
        return last - first + 1;
    }

    public static Ask parse(String header, long length) {
        if (header == null) {
            return new Ask.Whole();
        }
        String h = header.strip();
        if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
            return new Ask.Whole();
        }
        String spec = h.substring(6).strip();
        if (spec.contains(",")) {
            return new Ask.Whole();
        }
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return new Ask.Whole();
        }
        String a = spec.substring(0, dash).strip();
        String b = spec.substring(dash + 1).strip();
        if (a.isEmpty()) {
            Optional<Long> suffix = digits(b);
            if (suffix.isEmpty()) {
                return new Ask.Whole();
            }
            if (suffix.get() == 0 || length == 0) {
                return new Ask.Unsatisfiable();
            }
            return new Ask.Part(new ByteRange(Math.max(0, length - suffix.get()), length - 1));
        }
        Optional<Long> first = digits(a);
        Optional<Long> last = b.isEmpty() ? Optional.of(Long.MAX_VALUE) : digits(b);
        if (first.isEmpty() || last.isEmpty() || last.get() < first.get()) {
            return new Ask.Whole();
        }
        if (first.get() >= length) {
            return new Ask.Unsatisfiable();
        }
        return new Ask.Part(new ByteRange(first.get(), Math.min(last.get(), length - 1)));
    }

    /** ASCII digits only (no sign, no spaces inside); a value past a long is the largest long. */
    private static Optional<Long> digits(String s) {
        if (s.isEmpty()) {
            return Optional.empty();
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return Optional.empty();
            }
            if (v > (Long.MAX_VALUE - (c - '0')) / 10) {
                v = Long.MAX_VALUE;
            } else if (v != Long.MAX_VALUE) {
                v = v * 10 + (c - '0');
            }
        }
        return Optional.of(v);
    }
}
