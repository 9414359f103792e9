package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import sush.gossip.clock.Version;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.Delivery;
import sush.gossip.set.Replica;

/**
 * Any schedule of sends and pairwise syncs among up to 8 replicas, with sessions cut at random
 * bytes, converges after a quiet period to the union of all sends, every replica delivering
 * every message exactly once and in causal order.
 */
class SyncPropertiesTest {
    private static final int STEPS = 80;

    static LongStream seeds() {
        return LongStream.range(0, 120);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void randomSchedulesWithCutsConvergeToTheUnion(long seed) {
        Random random = new Random(seed);
        Rack rack = Rack.of(2 + random.nextInt(7), seed);
        int n = rack.replicas.size();
        for (int step = 0; step < STEPS; step++) {
            int i = random.nextInt(n);
            if (random.nextInt(3) == 0) {
                rack.send(i, "m" + step + "@" + i);
                continue;
            }
            int j = (i + 1 + random.nextInt(n - 1)) % n;
            MemoryLink[] links = MemoryLink.pair();
            if (random.nextBoolean()) {
                links[0].cutAfter(random.nextInt(600));
            }
            Rack.sync(rack.replicas.get(i), SyncSession.Intent.GOSSIP, rack.replicas.get(j), SyncSession.Intent.GOSSIP,
                    links);
            for (Replica r : rack.replicas) {
                assertHoldsEverythingBelowItsFrontier(rack, r, seed);
            }
        }
        quiesce(rack);
        for (int k = 0; k < n; k++) {
            Replica r = rack.replicas.get(k);
            assertEquals(rack.sent.size(), r.size(), "seed " + seed + ": replica " + k + " holds the union");
            assertDeliveredOnceInCausalOrder(rack.delivered.get(k), rack.sent, seed);
        }
        assertEquals(1, rack.replicas.stream().map(Replica::frontier).distinct().count(), "one frontier");
    }

    /** Syncs around the ring twice without faults: the union spreads everywhere. */
    static void quiesce(Rack rack) {
        int n = rack.replicas.size();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < n; i++) {
                Rack.Outcomes o = rack.sync(i, (i + 1) % n);
                assertNull(o.error(), () -> "quiet sync failed: " + o.error());
            }
        }
    }

    static void assertHoldsEverythingBelowItsFrontier(Rack rack, Replica r, long seed) {
        Version frontier = r.frontier();
        Version joined = Version.ZERO;
        for (Delivery d : r.readFrom(0, Integer.MAX_VALUE)) {
            assertTrue(rack.sent.containsKey(d.version()), "only messages someone sent");
            joined = joined.join(d.version());
        }
        assertEquals(frontier, joined, "seed " + seed + ": frontier is the join of what is held");
        for (Version v : rack.sent.keySet()) {
            if (v.leq(frontier)) {
                assertTrue(r.contains(v), () -> "seed " + seed + ": holds " + v + " below its frontier");
            }
        }
    }

    static void assertDeliveredOnceInCausalOrder(List<Delivery> delivered, Map<Version, String> sent, long seed) {
        Set<Version> seen = new HashSet<>();
        for (int a = 0; a < delivered.size(); a++) {
            Delivery d = delivered.get(a);
            assertTrue(seen.add(d.version()), "seed " + seed + ": delivered once");
            assertEquals(a + 1L, d.checkpoint(), "checkpoints count deliveries");
            assertEquals(sent.get(d.version()), new String(d.payload(), java.nio.charset.StandardCharsets.UTF_8));
            for (int b = 0; b < a; b++) {
                assertFalse(d.version().lessThan(delivered.get(b).version()),
                        () -> "seed " + seed + ": " + d.version() + " delivered after a message it precedes");
            }
        }
        assertEquals(sent.size(), seen.size(), "seed " + seed + ": every message delivered");
    }
}
