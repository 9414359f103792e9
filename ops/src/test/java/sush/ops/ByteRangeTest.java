package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import sush.ops.api.ByteRange;

/** Range requests as RFC 9110 reads them (issue 22): suffixes, ends past the file, bad syntax ignored, longs. */
class ByteRangeTest {
    private static ByteRange.Ask ask(String h, long length) {
        return ByteRange.parse(h, length);
    }

    private static ByteRange.Ask part(long a, long b) {
        return new ByteRange.Ask.Part(new ByteRange(a, b));
    }

    @Test
    void eachFormOfOneRange() {
        assertEquals(part(1, 2), ask("bytes=1-2", 10));
        assertEquals(part(5, 9), ask("bytes=-5", 10), "the last five bytes");
        assertEquals(part(0, 9), ask("bytes=-50", 10), "a suffix longer than the file is the file");
        assertEquals(part(3, 9), ask("bytes=3-", 10));
        assertEquals(part(0, 9), ask("bytes=0-999999999999", 10), "an end past the file is the file's end");
        assertEquals(part(0, 9), ask("bytes=0-99999999999999999999999", 10), "past a long too");
        assertEquals(part(9, 9), ask("BYTES=9-9", 10));
        assertEquals(part(4_000_000_000L, 4_000_000_009L), ask("bytes=4000000000-4000000009", 5_000_000_000L),
                "offsets past 2^31");
    }

    @Test
    void unsatisfiableRangesAre416() {
        assertEquals(new ByteRange.Ask.Unsatisfiable(), ask("bytes=10-12", 10));
        assertEquals(new ByteRange.Ask.Unsatisfiable(), ask("bytes=-0", 10));
        assertEquals(new ByteRange.Ask.Unsatisfiable(), ask("bytes=0-", 0));
        assertEquals(new ByteRange.Ask.Unsatisfiable(), ask("bytes=-5", 0));
    }

    @Test
    void badSyntaxAnotherUnitOrSeveralRangesAreIgnored() {
        for (String h : new String[] {"bytes=+1-3", "bytes=1-+3", "bytes=3-1", "bytes=a-b", "bytes=1", "bytes=-",
            "items=1-2", "bytes=0-1,3-4", "bytes=\u0661-2", "bytes= 1 2-3"}) {
            assertEquals(new ByteRange.Ask.Whole(), ask(h, 10), h);
        }
        assertEquals(new ByteRange.Ask.Whole(), ask(null, 10));
    }
}
