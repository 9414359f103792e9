package sush.gossip.clock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import sush.gossip.wire.MalformedException;

/** ITC laws on random fork/event/join schedules, checked against an exact history oracle. */
class ClockLawsTest {
    private static final int SCHEDULE_STEPS = 120;
    private static final int MAX_PARTIES = 10;

    static LongStream seeds() {
        return LongStream.range(0, 150);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void leqAgreesWithTheHappenedBeforeOracle(long seed) {
        List<Stamp> stamps = Schedules.run(seed, SCHEDULE_STEPS, MAX_PARTIES);
        for (int i = 0; i < stamps.size(); i += 3) {
            for (int j = 0; j < stamps.size(); j += 2) {
                Stamp a = stamps.get(i);
                Stamp b = stamps.get(j);
                assertEquals(a.oracleLeq(b), a.version().leq(b.version()),
                        () -> "seed " + seed + ": " + a.version() + " <= " + b.version());
            }
        }
    }

    /** The allocation-free walks give exactly what the splitting cursors give, leq and join. */
    @ParameterizedTest
    @MethodSource("seeds")
    void theLeafWalksAgreeWithTheCursorWalks(long seed) {
        List<Stamp> stamps = Schedules.run(seed, SCHEDULE_STEPS, MAX_PARTIES);
        for (int i = 0; i < stamps.size(); i += 2) {
            for (int j = 1; j < stamps.size(); j += 3) {
                Version a = stamps.get(i).version();
                Version b = stamps.get(j).version();
                assertEquals(Version.leqByCursor(a, b), Version.leqWalk(a.depth, a.value, b.depth, b.value),
                        () -> "seed " + seed + ": " + a + " <= " + b);
                assertEquals(Version.of(Version.joinByCursor(a, b)), Version.of(Version.joinWalk(a.depth, a.value,
                        b.depth, b.value)), () -> "seed " + seed + ": " + a + " join " + b);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void tickIsStrictlyGreaterAndStaysInsideTheIdentity(long seed) {
        for (Stamp s : Schedules.run(seed, SCHEDULE_STEPS, MAX_PARTIES)) {
            if (s.id().isZero()) {
                continue;
            }
            Version next = s.version().tick(s.id());
            assertTrue(s.version().lessThan(next), () -> "seed " + seed + ": tick of " + s.version());
            Id[] halves = s.id().fork();
            Version left = s.version().tick(halves[0]);
            Version right = s.version().tick(halves[1]);
            assertTrue(left.concurrentWith(right), () -> "seed " + seed + ": ticks of disjoint halves of " + s.id());
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void joinIsTheLeastUpperBound(long seed) {
        List<Stamp> stamps = Schedules.run(seed, SCHEDULE_STEPS, MAX_PARTIES);
        for (int i = 0; i + 2 < stamps.size(); i += 5) {
            Version a = stamps.get(i).version();
            Version b = stamps.get(i + 1).version();
            Version c = stamps.get(i + 2).version();
            Version ab = a.join(b);
            assertTrue(a.leq(ab) && b.leq(ab), "upper bound");
            assertEquals(ab, b.join(a), "commutative");
            assertEquals(ab.join(c), a.join(b.join(c)), "associative");
            assertEquals(a, a.join(a), "idempotent");
            if (a.leq(c) && b.leq(c)) {
                assertTrue(ab.leq(c), "least");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void leqIsAPartialOrder(long seed) {
        List<Stamp> stamps = Schedules.run(seed, 60, MAX_PARTIES);
        for (Stamp x : stamps) {
            assertTrue(x.version().leq(x.version()), "reflexive");
            for (Stamp y : stamps) {
                Version a = x.version();
                Version b = y.version();
                if (a.leq(b) && b.leq(a)) {
                    assertEquals(a, b, "antisymmetric");
                }
                assertEquals(a.concurrentWith(b), !a.leq(b) && !b.leq(a));
            }
        }
        for (int i = 0; i + 2 < stamps.size(); i++) {
            Version a = stamps.get(i).version();
            Version b = stamps.get(i + 1).version();
            Version c = stamps.get(i + 2).version();
            if (a.leq(b) && b.leq(c)) {
                assertTrue(a.leq(c), "transitive");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void encodingRoundTripsAndEqualityFollowsBytes(long seed) throws MalformedException {
        List<Stamp> stamps = Schedules.run(seed, SCHEDULE_STEPS, MAX_PARTIES);
        for (Stamp s : stamps) {
            Version v = Version.fromBytes(s.version().toBytes());
            assertEquals(s.version(), v);
            assertEquals(s.version().hashCode(), v.hashCode());
            assertArrayEquals(s.version().toBytes(), v.toBytes());
            assertEquals(s.id(), Id.fromBytes(s.id().toBytes()));
        }
        for (int i = 0; i + 1 < stamps.size(); i++) {
            Version a = stamps.get(i).version();
            Version b = stamps.get(i + 1).version();
            assertEquals(a.equals(b), java.util.Arrays.equals(a.toBytes(), b.toBytes()));
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void forksAreDisjointAndJoinBackToTheWhole(long seed) {
        for (Stamp s : Schedules.run(seed, 60, MAX_PARTIES)) {
            Id[] halves = s.id().fork();
            assertEquals(s.id(), halves[0].join(halves[1]));
            if (!s.id().isZero()) {
                assertNotEquals(Id.ZERO, halves[0]);
                assertNotEquals(Id.ZERO, halves[1]);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void causalOrderIsALinearExtension(long seed) {
        List<Stamp> stamps = Schedules.run(seed, SCHEDULE_STEPS, MAX_PARTIES);
        for (int i = 0; i < stamps.size(); i += 2) {
            for (int j = 0; j < stamps.size(); j += 3) {
                Version a = stamps.get(i).version();
                Version b = stamps.get(j).version();
                if (a.lessThan(b)) {
                    assertTrue(Version.CAUSAL_ORDER.compare(a, b) < 0, () -> a + " before " + b);
                }
            }
        }
        assertFalse(Version.CAUSAL_ORDER.compare(Version.ZERO, Version.ZERO) != 0);
    }
}
