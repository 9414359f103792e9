package sush.gossip.clock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.wire.MalformedException;

/** Known values, bounds and refusals of identities and versions. */
class ClockTest {
    @Test
    void forkOfTheSeedIsTheTwoHalves() {
        Id[] halves = Id.ONE.fork();
        assertEquals("(1, 0)", halves[0].toString());
        assertEquals("(0, 1)", halves[1].toString());
        Id[] quarters = halves[1].fork();
        assertEquals("(0, (1, 0))", quarters[0].toString());
        assertEquals("(0, (0, 1))", quarters[1].toString());
    }

    @Test
    void balancedForkIntoNSharesIsDisjointAndCoversTheWhole() {
        for (int n = 1; n <= 33; n++) {
            List<Id> shares = Id.ONE.fork(n);
            assertEquals(n, shares.size());
            Id whole = Id.ZERO;
            for (Id share : shares) {
                assertTrue(!share.isZero());
                whole = whole.join(share);
            }
            assertEquals(Id.ONE, whole);
        }
        assertTrue(Id.ONE.fork(32).stream().allMatch(id -> id.leafCount() <= 6), "32 shares are 5 levels deep");
    }

    @Test
    void joiningOverlappingIdentitiesIsRefused() {
        Id[] halves = Id.ONE.fork();
        ClockException e = assertThrows(ClockException.class, () -> halves[0].join(Id.ONE));
        assertEquals(ClockException.Kind.OVERLAPPING_IDS, e.kind());
    }

    @Test
    void theZeroIdentityCannotTick() {
        ClockException e = assertThrows(ClockException.class, () -> Version.ZERO.tick(Id.ZERO));
        assertEquals(ClockException.Kind.ANONYMOUS_TICK, e.kind());
    }

    @Test
    void ticksFillBeforeTheyGrow() {
        Id[] halves = Id.ONE.fork();
        Version left = Version.ZERO.tick(halves[0]);
        assertEquals("(1, 0)", left.toString());
        Version right = left.tick(halves[1]);
        assertEquals("1", right.toString(), "the right half fills up to its sibling and the tree collapses");
        assertEquals("2", right.tick(Id.ONE).toString());
    }

    @Test
    void minTicksIsTheSumOfNormalisedBases() {
        Version v = Version.ZERO;
        for (int i = 0; i < 5; i++) {
            v = v.tick(Id.ONE);
        }
        assertEquals(5, v.minTicks());
        Id[] halves = Id.ONE.fork();
        Version w = v.tick(halves[0]).tick(halves[0]);
        assertEquals("(7, 5)", w.toString());
        assertEquals(7, w.minTicks(), "base 5 + 2 on the left + 0 on the right");
    }

    @Test
    void encodingIsCompactAndPinned() throws MalformedException {
        Id[] halves = Id.ONE.fork();
        Version v = Version.ZERO.tick(halves[0]).tick(halves[0]).join(Version.ZERO.tick(halves[1]));
        assertEquals("(2, 1)", v.toString());
        assertEquals("02800201", HexFormat.of().formatHex(v.toBytes()));
        assertEquals("028080", HexFormat.of().formatHex(halves[0].toBytes()));
        assertEquals("0100", HexFormat.of().formatHex(Version.ZERO.toBytes()));
        assertEquals(v, Version.fromBytes(HexFormat.of().parseHex("02800201")));
    }

    @Test
    void decodingRefusesEveryNonCanonicalForm() {
        assertMalformed("", MalformedException.Reason.TRUNCATED);
        assertMalformed("0100ff", MalformedException.Reason.TRAILING_BYTES);
        assertMalformed("028000", MalformedException.Reason.TRUNCATED);
        assertMalformed("02800100", MalformedException.Reason.NON_CANONICAL);
        assertMalformed("02810201", MalformedException.Reason.NON_CANONICAL);
        assertMalformed("02400201", MalformedException.Reason.INVALID);
        assertMalformed("018000", MalformedException.Reason.NON_CANONICAL);
        assertMalformed("00", MalformedException.Reason.INVALID);
        assertMalformed("ffffffff0f", MalformedException.Reason.TOO_LARGE);
        assertMalformed("01ffffffffffffffff7f", MalformedException.Reason.OUT_OF_RANGE);
    }

    /**
     * The decoder keeps the last shape it parsed: a version with the same shape bits decodes
     * exactly as a fresh parse would, refusals included, and versions sharing a shape stay
     * independent however they are used afterwards.
     */
    @Test
    void aRepeatedShapeDecodesAsAFreshParseWould() throws MalformedException {
        List<Version> versions = new java.util.ArrayList<>();
        for (Stamp s : Schedules.run(3, 200, 8)) {
            versions.add(s.version());
        }
        for (int i = 0; i < versions.size(); i++) {
            Version v = versions.get(i);
            byte[] bytes = v.toBytes();
            assertEquals(v, Version.fromBytes(bytes));
            Version again = Version.fromBytes(bytes); // the same shape twice: the kept one
            assertEquals(v, again);
            Version other = versions.get((i * 7) % versions.size());
            assertEquals(v.join(other), again.join(other));
            assertArrayEquals(bytes, again.toBytes(), "using a decoded version leaves it as it was");
        }
        Version.fromBytes(HexFormat.of().parseHex("02800201"));
        assertMalformed("02800100", MalformedException.Reason.NON_CANONICAL); // kept shape, equal siblings
        assertMalformed("02800200", MalformedException.Reason.NON_CANONICAL);
        assertMalformed("0280", MalformedException.Reason.TRUNCATED);
        assertMalformed("02810201", MalformedException.Reason.NON_CANONICAL); // same count, other bits
        assertEquals(Version.fromBytes(HexFormat.of().parseHex("02800201")), Version.fromBytes(HexFormat.of()
                .parseHex("02800201")));
    }

    /**
     * The decoder's normal-form check (sibling leaves found in the shape bits) refuses exactly the
     * trees that normalising would change, for random shapes and values.
     */
    @Test
    void decodingRefusesExactlyTheTreesNormalisingWouldChange() {
        java.util.Random r = new java.util.Random(5);
        for (int i = 0; i < 3_000; i++) {
            List<Integer> depths = new java.util.ArrayList<>(List.of(0));
            int splits = r.nextInt(12);
            for (int k = 0; k < splits; k++) {
                int at = r.nextInt(depths.size());
                int d = depths.get(at);
                depths.set(at, d + 1);
                depths.add(at + 1, d + 1);
            }
            int n = depths.size();
            int[] depth = depths.stream().mapToInt(Integer::intValue).toArray();
            long[] value = new long[n];
            for (int k = 0; k < n; k++) {
                value[k] = r.nextInt(3);
            }
            Leaves tree = new Leaves(depth, value, n);
            boolean normal = tree.normalize().sameAs(depth, value);
            byte[] bytes = ClockCodec.encode(depth, value, true);
            if (normal) {
                assertEquals(n == 1 && value[0] == 0 ? 1 : n, assertDoesNotThrow(() -> Version.fromBytes(bytes)).leafCount(),
                        HexFormat.of().formatHex(bytes));
            } else {
                assertEquals(MalformedException.Reason.NON_CANONICAL, assertThrows(MalformedException.class,
                        () -> Version.fromBytes(bytes), HexFormat.of().formatHex(bytes)).reason());
            }
        }
    }

    @Test
    void identityDecodingRefusesUnnormalisedTrees() {
        MalformedException e = assertThrows(MalformedException.class, () -> Id.fromBytes(HexFormat.of().parseHex("0280c0")));
        assertEquals(MalformedException.Reason.NON_CANONICAL, e.reason());
    }

    @Test
    void treesAtTheLeafBoundDecodeAndOneMoreDoesNot() throws MalformedException {
        Version atBound = Version.fromBytes(DeepTrees.spine(ClockCodec.MAX_LEAVES - 1).toBytes());
        assertEquals(ClockCodec.MAX_LEAVES, atBound.leafCount());
        byte[] over = new sush.gossip.wire.WireWriter().writeVarint(ClockCodec.MAX_LEAVES + 1L).toByteArray();
        MalformedException e = assertThrows(MalformedException.class, () -> Version.fromBytes(over));
        assertEquals(MalformedException.Reason.TOO_LARGE, e.reason());
    }

    @Test
    void hostileDeepTreesDoNotBlowTheStack() throws MalformedException {
        int depth = 100_000;
        Version deep = DeepTrees.spine(depth);
        Id deepId = DeepTrees.spineId(depth);
        byte[] bytes = deep.toBytes();
        Version decoded = Version.fromBytes(bytes);
        assertEquals(deep, decoded);
        assertArrayEquals(bytes, decoded.toBytes());
        assertEquals(deepId, Id.fromBytes(deepId.toBytes()));
        assertTrue(deep.leq(deep.join(Version.ZERO.tick(Id.ONE))));
        assertTrue(!deep.leq(Version.ZERO));
        Version ticked = deep.tick(deepId);
        assertTrue(deep.lessThan(ticked));
        assertTrue(deep.minTicks() > 0);
        assertTrue(deep.toString().length() > depth);
        Id[] halves = deepId.fork();
        assertEquals(deepId, halves[0].join(halves[1]));
        assertTrue(Version.CAUSAL_ORDER.compare(deep, ticked) < 0);
    }

    @Test
    void onlyTheSeedIsTheWholeInterval() {
        Id[] halves = Id.ONE.fork();
        assertTrue(Id.ONE.isOne());
        assertFalse(Id.ZERO.isOne());
        assertFalse(halves[0].isOne());
        assertFalse(halves[1].isOne());
        assertTrue(halves[0].join(halves[1]).isOne());
        assertEquals(1, Id.ONE.leafCount());
        assertEquals(2, halves[0].leafCount());
        assertEquals(3, halves[1].fork()[0].leafCount());
    }

    @Test
    void theEmptyIdentityForksIntoTwoEmptyOnesAndJoinsAsNothing() {
        assertArrayEquals(new Id[] {Id.ZERO, Id.ZERO}, Id.ZERO.fork());
        Id[] halves = Id.ONE.fork();
        assertEquals(halves[0], halves[0].join(Id.ZERO));
        assertEquals(halves[1], Id.ZERO.join(halves[1]));
    }

    /** Equal trees hash alike; trees with the same leaf values in another shape hash apart. */
    @Test
    void hashesFollowShapeAndValues() throws MalformedException {
        Id leftQuarter = Id.of(new Leaves(new int[] {2, 2, 1}, new long[] {0, 1, 0}, 3));
        Id rightQuarter = Id.of(new Leaves(new int[] {1, 2, 2}, new long[] {0, 1, 0}, 3));
        assertEquals("((0, 1), 0)", leftQuarter.toString());
        assertEquals("(0, (1, 0))", rightQuarter.toString());
        assertNotEquals(leftQuarter.hashCode(), rightQuarter.hashCode());
        assertNotEquals(Id.ZERO.hashCode(), Id.ONE.hashCode());
        assertEquals(leftQuarter.hashCode(), Id.fromBytes(leftQuarter.toBytes()).hashCode());

        Version left = Version.of(new Leaves(new int[] {2, 2, 1}, new long[] {1, 0, 2}, 3));
        Version right = Version.of(new Leaves(new int[] {1, 2, 2}, new long[] {1, 0, 2}, 3));
        assertEquals("((1, 0), 2)", left.toString());
        assertEquals("(1, (0, 2))", right.toString());
        assertNotEquals(left.hashCode(), right.hashCode());
        assertNotEquals(Version.ZERO.hashCode(), Version.ZERO.tick(Id.ONE).hashCode());
        assertEquals(left.hashCode(), Version.fromBytes(left.toBytes()).hashCode());
    }

    @Test
    void leavesThatAreAllZeroAreTheZeroVersion() {
        assertSame(Version.ZERO, Version.of(new Leaves(new int[] {1, 2, 2}, new long[] {0, 0, 0}, 3)));
        assertSame(Version.ZERO, Version.of(new Leaves(new int[] {0}, new long[] {0}, 1)));
        assertSame(Id.ONE, Id.of(new Leaves(new int[] {1, 1}, new long[] {1, 1}, 2)));
    }

    /** The largest counter is reachable, round-trips and is refused one further, by tick and by decoding. */
    @Test
    void theLargestCounterIsTheLast() throws MalformedException {
        long max = Version.MAX_COUNTER;
        Version below = Version.of(new Leaves(new int[] {0}, new long[] {max - 1}, 1));
        Version top = below.tick(Id.ONE);
        assertEquals(String.valueOf(max), top.toString());
        assertEquals(top, Version.fromBytes(top.toBytes()));
        ClockException e = assertThrows(ClockException.class, () -> top.tick(Id.ONE));
        assertEquals(ClockException.Kind.COUNTER_OVERFLOW, e.kind());

        Id[] halves = Id.ONE.fork();
        Version topLeft = Version.of(new Leaves(new int[] {1, 1}, new long[] {max, 0}, 2));
        assertEquals(topLeft, Version.fromBytes(topLeft.toBytes()));
        assertEquals(ClockException.Kind.COUNTER_OVERFLOW,
                assertThrows(ClockException.class, () -> topLeft.tick(halves[0])).kind());

        byte[] over = ClockCodec.encode(new int[] {0}, new long[] {max + 1}, true);
        assertEquals(MalformedException.Reason.OUT_OF_RANGE,
                assertThrows(MalformedException.class, () -> Version.fromBytes(over)).reason());
        byte[] overOnTheRight = ClockCodec.encode(new int[] {1, 1}, new long[] {max, max + 1}, true);
        assertEquals(MalformedException.Reason.OUT_OF_RANGE,
                assertThrows(MalformedException.class, () -> Version.fromBytes(overOnTheRight)).reason());
    }

    @Test
    void identityBitsMustBePaddedWithZeros() throws MalformedException {
        assertEquals(Id.ONE, Id.fromBytes(HexFormat.of().parseHex("0180")));
        MalformedException e = assertThrows(MalformedException.class, () -> Id.fromBytes(HexFormat.of().parseHex("0181")));
        assertEquals(MalformedException.Reason.NON_CANONICAL, e.reason());
        Id[] halves = Id.ONE.fork();
        assertEquals("028080", HexFormat.of().formatHex(halves[0].toBytes()));
        e = assertThrows(MalformedException.class, () -> Id.fromBytes(HexFormat.of().parseHex("028081")));
        assertEquals(MalformedException.Reason.NON_CANONICAL, e.reason());
    }

    /**
     * Versions decoded from the same shape bits share one depth array (the point of keeping the
     * last shape); bytes that hold the shape and nothing after it are refused and keep nothing new.
     */
    @Test
    void versionsOfOneShapeShareTheirDepths() throws MalformedException {
        byte[] bytes = HexFormat.of().parseHex("02800201");
        Version first = Version.fromBytes(bytes);
        Version second = Version.fromBytes(bytes);
        assertSame(first.depth, second.depth);
        Version other = Version.fromBytes(HexFormat.of().parseHex("02800101"));
        assertEquals("(1, 0)", other.toString());
        assertSame(first.depth, other.depth);
        assertMalformed("0280", MalformedException.Reason.TRUNCATED);
        assertSame(first.depth, Version.fromBytes(bytes).depth);
        Version threeLeaves = Version.fromBytes(Version.of(new Leaves(new int[] {1, 2, 2}, new long[] {1, 0, 2}, 3))
                .toBytes());
        assertSame(threeLeaves.depth, Version.fromBytes(threeLeaves.toBytes()).depth);
    }

    /** A version inside a larger buffer decodes from its slice alone; a slice past the buffer is refused. */
    @Test
    void aVersionDecodesFromItsSliceOfABuffer() throws MalformedException {
        byte[] buffer = HexFormat.of().parseHex("ff02800201ff");
        assertEquals("(2, 1)", Version.fromBytes(buffer, 1, 4).toString());
        assertEquals(MalformedException.Reason.TRAILING_BYTES,
                assertThrows(MalformedException.class, () -> Version.fromBytes(buffer, 1, 5)).reason());
        assertThrows(IllegalArgumentException.class, () -> Version.fromBytes(buffer, 2, 5));
        assertThrows(IllegalArgumentException.class, () -> Version.fromBytes(buffer, 6, 1));
        assertThrows(IllegalArgumentException.class, () -> Version.fromBytes(buffer, -1, 4));
        assertThrows(IllegalArgumentException.class, () -> Version.fromBytes(buffer, 1, -1));
        assertEquals(Version.ZERO, Version.fromBytes(HexFormat.of().parseHex("000100"), 1, 2));
    }

    private static void assertMalformed(String hex, MalformedException.Reason reason) {
        MalformedException e = assertThrows(MalformedException.class, () -> Version.fromBytes(HexFormat.of().parseHex(hex)),
                hex);
        assertEquals(reason, e.reason(), hex + ": " + e.getMessage());
    }
}
