package sush.locker.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.locker.Fixtures;
import sush.projections.fold.JobStatus;

/**
 * The record's bounds exactly at their limits, and the small values the codec and the
 * admission rely on (issue 21: each test here kills a mutant that survived the suite).
 */
class RecordBoundsTest {
    private static BoundaryRecord withBaseboard(String baseboard) {
        return new BoundaryRecord(baseboard, Fixtures.universe(1), Fixtures.ticks(Fixtures.ids(2).get(0), 1),
                Optional.empty(), List.of(), Bloom.EMPTY, false);
    }

    @Test
    void aBaseboardOfExactlyTheBoundRoundTripsAndOneMoreIsRefused() throws Exception {
        String longest = "B".repeat(BoundaryRecord.MAX_BASEBOARD_CHARS);
        BoundaryRecord r = withBaseboard(longest);
        assertEquals(r, BoundaryCodec.decode(BoundaryCodec.encode(r)));
        assertThrows(IllegalArgumentException.class, () -> withBaseboard(longest + "B"));
        assertThrows(IllegalArgumentException.class, () -> withBaseboard(""));
    }

    @Test
    void anOutcomeDetailOfExactlyTheBoundIsKeptAndOneMoreIsRefused() throws Exception {
        String longest = "d".repeat(Outcome.MAX_DETAIL_CHARS);
        Outcome o = Outcome.ended(JobStatus.ERROR, 9, longest);
        BoundaryRecord r = new BoundaryRecord(Fixtures.ME, Fixtures.universe(1), Fixtures.ticks(Fixtures.ids(2).get(0),
                1), Optional.of(Fixtures.committed(Fixtures.session("s"), 0, o)), List.of(), Bloom.EMPTY, false);
        assertEquals(r, BoundaryCodec.decode(BoundaryCodec.encode(r)));
        assertThrows(IllegalArgumentException.class, () -> Outcome.ended(JobStatus.ERROR, 9, longest + "d"));
        assertTrue(o.isEnded());
        assertFalse(Outcome.COMMITTED.isEnded());
    }

    @Test
    void aRecordNamesItsUniverseAndEveryRecentOne() {
        BoundaryRecord full = Fixtures.full();
        List<sush.gossip.set.NetworkId> u = full.universes();
        assertEquals(1 + full.recent().size(), u.size());
        assertEquals(full.network(), u.get(0));
        for (Left l : full.recent()) {
            assertTrue(u.contains(l.network()), l.network().toString());
        }
    }

    @Test
    void theFilterCountsItsBitsAndComparesByThem() {
        assertEquals(0, Bloom.EMPTY.fill());
        Bloom one = Bloom.EMPTY.with(Fixtures.universe(7));
        assertTrue(one.fill() >= 1 && one.fill() <= Bloom.PROBES, "fill " + one.fill());
        Bloom two = one.with(Fixtures.universe(8));
        assertTrue(two.fill() > one.fill(), two.fill() + " after " + one.fill());
        assertNotEquals(Bloom.EMPTY, one);
        assertNotEquals(one, two);
        assertEquals(one, Bloom.EMPTY.with(Fixtures.universe(7)));
        assertEquals(one.hashCode(), Bloom.EMPTY.with(Fixtures.universe(7)).hashCode());
        assertNotEquals(Bloom.EMPTY.hashCode(), one.hashCode());
    }

    @Test
    void aRecordMissingAFieldIsMalformedNotACrash() throws Exception {
        // Re-encode a record's CBOR without one field, at the top and inside committed and recent.
        tools.jackson.dataformat.cbor.CBORMapper cbor = new tools.jackson.dataformat.cbor.CBORMapper();
        byte[] full = BoundaryCodec.encode(Fixtures.full());
        for (String[] path : new String[][] {{"network"}, {"committed", "job"}, {"recent", "0", "executed"}}) {
            tools.jackson.databind.node.ArrayNode root = (tools.jackson.databind.node.ArrayNode) cbor.readTree(full);
            tools.jackson.databind.JsonNode at = root.get(1);
            for (int i = 0; i < path.length - 1; i++) {
                at = path[i].matches("\\d+") ? at.get(Integer.parseInt(path[i])) : at.get(path[i]);
            }
            ((tools.jackson.databind.node.ObjectNode) at).remove(path[path.length - 1]);
            byte[] bad = cbor.writeValueAsBytes(root);
            RecordException e = assertThrows(RecordException.class, () -> BoundaryCodec.decode(bad),
                    String.join(".", path));
            assertEquals(RecordException.Reason.MALFORMED, e.reason());
        }
    }

    @Test
    void anOversizedRecordIsRefusedBeforeParsingAndOneOfTheBoundIsParsed() {
        RecordException over = assertThrows(RecordException.class,
                () -> BoundaryCodec.decode(new byte[BoundaryCodec.MAX_RECORD_BYTES + 1]));
        assertTrue(over.getMessage().contains("over"), over.getMessage());
        RecordException at = assertThrows(RecordException.class,
                () -> BoundaryCodec.decode(new byte[BoundaryCodec.MAX_RECORD_BYTES]));
        assertFalse(at.getMessage().contains("over " + BoundaryCodec.MAX_RECORD_BYTES), "a record of exactly the "
                + "bound is parsed (and these zeros are not CBOR of a record): " + at.getMessage());
    }
}
