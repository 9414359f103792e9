package sush.gossip.clock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.ItcReference.Ev;
import sush.gossip.clock.ItcReference.It;

/**
 * The leaf-sequence clock against the paper's recursive rules ({@link ItcReference}) on random
 * normal trees: shallow and small, at the walk's depth bound (62) and past it, and with counters
 * around the fast integral's bound and the largest counter.
 */
class ClockReferenceTest {
    @Test
    void tickIsThePapersEventOnRandomIdentitiesAndVersions() {
        Random r = new Random(11);
        int grows = 0;
        for (int i = 0; i < 20_000; i++) {
            Id id = ItcReference.randomId(r, r.nextInt(7));
            if (id.isZero()) {
                continue;
            }
            Version v = ItcReference.randomVersion(r, ItcReference.randomShape(r, r.nextInt(7), false),
                    ItcReference::smallCounter);
            Ev e = ItcReference.event(v);
            Ev expected = ItcReference.event(ItcReference.identity(id), e);
            if (ItcReference.fill(ItcReference.identity(id), e).equals(e)) {
                grows++;
            }
            Version ticked = v.tick(id);
            assertEquals(ItcReference.version(expected), ticked, () -> v + " tick by " + id);
        }
        assertTrue(grows > 2_000, "grow is reached often: " + grows);
    }

    @Test
    void tickAlongSchedulesIsThePapersEvent() {
        for (long seed = 0; seed < 40; seed++) {
            for (Stamp s : Schedules.run(seed, 120, 10)) {
                if (s.id().isZero()) {
                    continue;
                }
                Ev expected = ItcReference.event(ItcReference.identity(s.id()), ItcReference.event(s.version()));
                assertEquals(ItcReference.version(expected), s.version().tick(s.id()));
            }
        }
    }

    /** Each fill rule once by hand: a 1-leaf beside a subtree lifts to what that subtree now guarantees. */
    @Test
    void fillLiftsAnOwnedHalfToItsSiblingsMinimum() {
        Id[] halves = Id.ONE.fork();
        Version lowLeft = Version.ZERO.tick(halves[1]).tick(halves[1]);
        assertEquals("(0, 2)", lowLeft.toString());
        assertEquals("2", lowLeft.tick(halves[0]).toString());
        Version lowRight = Version.ZERO.tick(halves[0]).tick(halves[0]);
        assertEquals("2", lowRight.tick(halves[1]).toString());
    }

    /** Two owned points at equal cost: grow takes the right one, as the paper does. */
    @Test
    void growBreaksTiesToTheRight() {
        Id outerQuarters = Id.of(new Leaves(new int[] {2, 2, 2, 2}, new long[] {1, 0, 0, 1}, 4));
        assertEquals("((1, 0), (0, 1))", outerQuarters.toString());
        assertEquals("(0, (0, 1))", Version.ZERO.tick(outerQuarters).toString());
        Id innerQuarters = Id.of(new Leaves(new int[] {2, 2, 2, 2}, new long[] {0, 1, 1, 0}, 4));
        assertEquals("(0, (1, 0))", Version.ZERO.tick(innerQuarters).toString());
    }

    @Test
    void leqAndJoinAreThePapersOnShallowTrees() {
        Random r = new Random(12);
        for (int i = 0; i < 10_000; i++) {
            Version a = ItcReference.randomVersion(r, ItcReference.randomShape(r, r.nextInt(9), false),
                    ItcReference::smallCounter);
            Version b = ItcReference.randomVersion(r, ItcReference.randomShape(r, r.nextInt(9), false),
                    ItcReference::smallCounter);
            checkLeqAndJoin(a, b);
        }
    }

    /**
     * Trees at and past the walk's depth bound take the cursor walk, alone or against a shallow
     * tree, in either order; at the bound either walk would do.
     */
    @Test
    void leqAndJoinAreThePapersOnTreesAroundTheWalkBound() {
        Random r = new Random(13);
        int deepAgainstShallow = 0;
        int atTheBound = 0;
        for (int i = 0; i < 1_000; i++) {
            Version deep = ItcReference.randomVersion(r, ItcReference.randomShape(r, 62 + r.nextInt(24), true),
                    rr -> rr.nextInt(8));
            Version other = r.nextBoolean()
                    ? ItcReference.randomVersion(r, ItcReference.randomShape(r, r.nextInt(9), false), rr -> rr.nextInt(8))
                    : ItcReference.randomVersion(r, ItcReference.randomShape(r, 62 + r.nextInt(24), true),
                            rr -> rr.nextInt(8));
            if (deep.depth() > 62 && other.depth() <= 62 && deep.concurrentWith(other)) {
                deepAgainstShallow++;
            }
            if (deep.depth() == 62 || deep.depth() == 63) {
                atTheBound++;
            }
            checkLeqAndJoin(deep, other);
            checkLeqAndJoin(other, deep);
        }
        assertTrue(deepAgainstShallow > 60, "deep trees concurrent with shallow ones: " + deepAgainstShallow);
        assertTrue(atTheBound > 30, "trees 62 or 63 deep: " + atTheBound);
    }

    private static void checkLeqAndJoin(Version a, Version b) {
        Ev ea = ItcReference.event(a);
        Ev eb = ItcReference.event(b);
        assertEquals(ItcReference.leq(ea, eb), a.leq(b), () -> a + " <= " + b);
        assertEquals(ItcReference.version(ItcReference.join(ea, eb)), a.join(b), () -> a + " join " + b);
    }

    @Test
    void minTicksIsTheSumOfTheRelativeBasesSaturating() {
        Random r = new Random(14);
        int saturated = 0;
        for (int i = 0; i < 10_000; i++) {
            boolean large = r.nextBoolean();
            Version v = ItcReference.randomVersion(r, ItcReference.randomShape(r, r.nextInt(12), r.nextInt(4) == 0),
                    large ? ItcReference::largeCounter : ItcReference::smallCounter);
            long expected = ItcReference.minTicks(ItcReference.event(v));
            if (expected == Long.MAX_VALUE) {
                saturated++;
            }
            assertEquals(expected, v.minTicks(), v::toString);
            assertEquals(expected, v.minTicks(), "asked again");
        }
        assertTrue(saturated > 100, "saturating sums: " + saturated);
    }

    /** The largest counter on alternate leaves of a spine: 3 * (2^62 - 1) saturates, 2 * (2^62 - 1) does not. */
    @Test
    void minTicksSaturatesExactlyPastLongMax() {
        long m = Version.MAX_COUNTER;
        Version two = Version.of(new Leaves(new int[] {1, 2, 2}, new long[] {m, 0, m}, 3));
        assertEquals(2 * m, two.minTicks());
        Version three = Version.of(new Leaves(new int[] {1, 2, 3, 4, 4}, new long[] {m, 0, m, 0, m}, 5));
        assertEquals(Long.MAX_VALUE, three.minTicks());
        Version threeOnTheLeft = Version.of(new Leaves(new int[] {4, 4, 3, 2, 1}, new long[] {m, 0, m, 0, m}, 5));
        assertEquals(Long.MAX_VALUE, threeOnTheLeft.minTicks());
    }

    @Test
    void causalOrderComparesTheExactIntegrals() {
        Random r = new Random(15);
        List<Version> versions = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            int kind = r.nextInt(4);
            boolean deep = kind == 2;
            int splits = deep ? 28 + r.nextInt(8) : r.nextInt(6);
            versions.add(ItcReference.randomVersion(r, ItcReference.randomShape(r, splits, deep),
                    kind == 1 || kind == 3 ? ItcReference::largeCounter : ItcReference::smallCounter));
        }
        for (Version a : versions) {
            for (int j = 0; j < 40; j++) {
                Version b = versions.get(r.nextInt(versions.size()));
                assertEquals(ItcReference.compareIntegrals(a, b), Integer.signum(Version.CAUSAL_ORDER.compare(a, b)),
                        () -> a + " vs " + b);
            }
        }
    }

    /** Fast integrals (shallow, counters below 2^30) against exact ones, either way round. */
    @Test
    void causalOrderMixesFastAndExactIntegrals() {
        long limit = 1L << 30;
        Version fastHigh = Version.of(new Leaves(new int[] {0}, new long[] {limit - 1}, 1));
        Version exactLow = Version.of(new Leaves(new int[] {0}, new long[] {limit}, 1));
        // (0 + 2^31 - 1) / 2 = 2^30 - 1/2: between the two above, exact at scale 1.
        Version exactHalf = Version.of(new Leaves(new int[] {1, 1}, new long[] {0, 2 * limit - 1}, 2));
        assertTrue(Version.CAUSAL_ORDER.compare(fastHigh, exactLow) < 0);
        assertTrue(Version.CAUSAL_ORDER.compare(exactLow, fastHigh) > 0);
        assertTrue(Version.CAUSAL_ORDER.compare(exactHalf, fastHigh) > 0);
        assertTrue(Version.CAUSAL_ORDER.compare(fastHigh, exactHalf) < 0);
        assertTrue(Version.CAUSAL_ORDER.compare(exactHalf, exactLow) < 0);
        assertTrue(Version.CAUSAL_ORDER.compare(exactLow, exactHalf) > 0);
    }

    @Test
    void depthAndSizeAreTheTreesOwn() {
        Random r = new Random(16);
        for (int i = 0; i < 2_000; i++) {
            Version v = ItcReference.randomVersion(r, ItcReference.randomShape(r, r.nextInt(70), r.nextBoolean()),
                    ItcReference::largeCounter);
            assertEquals(ItcReference.depth(v), v.depth());
            assertEquals(ItcReference.depth(v), v.depth(), "asked again");
            assertEquals(v.toBytes().length, v.encodedSize());
            assertEquals(v.depth.length, v.leafCount());
        }
    }

    @Test
    void forkIsThePapersSplit() {
        Random r = new Random(17);
        for (int i = 0; i < 5_000; i++) {
            Id id = ItcReference.randomId(r, r.nextInt(9));
            It[] expected = ItcReference.split(ItcReference.identity(id));
            Id[] halves = id.fork();
            assertArrayEquals(new Id[] {ItcReference.id(ItcReference.normId(expected[0])),
                ItcReference.id(ItcReference.normId(expected[1]))}, halves, id::toString);
            assertEquals(id, halves[0].join(halves[1]));
            assertEquals(halves[0], halves[0].join(Id.ZERO));
            assertEquals(halves[1], Id.ZERO.join(halves[1]));
        }
    }
}
