package sush.gossip.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** Varints: every length round-trips, and only the one shortest encoding of a value reads. */
class WireReaderTest {
    @Test
    void varintsOfEveryLengthRoundTrip() throws MalformedException {
        Random r = new Random(9);
        long[] edges = {0, 1, 63, 64, 127, 128, 255, 16_383, 16_384, 2_097_151, 2_097_152, Long.MAX_VALUE};
        for (int i = 0; i < 20_000; i++) {
            long v = i < edges.length ? edges[i] : r.nextLong() >>> (1 + r.nextInt(63));
            WireWriter w = new WireWriter().writeVarint(v).writeVarint(v / 3);
            WireReader in = new WireReader(w.toByteArray());
            assertEquals(v, in.readVarint());
            assertEquals(v / 3, in.readVarint());
            assertEquals(0, in.remaining());
        }
    }

    @Test
    void redundantTruncatedAndOversizedVarintsAreRefused() {
        assertReason("8000", MalformedException.Reason.NON_CANONICAL); // 0 in two bytes
        assertReason("ff00", MalformedException.Reason.NON_CANONICAL);
        assertReason("818000", MalformedException.Reason.NON_CANONICAL);
        assertReason("80", MalformedException.Reason.TRUNCATED);
        assertReason("ff", MalformedException.Reason.TRUNCATED);
        assertReason("ffff", MalformedException.Reason.TRUNCATED);
        assertReason("", MalformedException.Reason.TRUNCATED);
        assertReason("ffffffffffffffffff01", MalformedException.Reason.OUT_OF_RANGE); // bit 63
        assertReason("ffffffffffffffffff8001", MalformedException.Reason.OUT_OF_RANGE);
    }

    private static void assertReason(String hex, MalformedException.Reason reason) {
        MalformedException e = assertThrows(MalformedException.class,
                () -> new WireReader(HexFormat.of().parseHex(hex)).readVarint(), hex);
        assertEquals(reason, e.reason(), hex + ": " + e.getMessage());
    }
}
