package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import sush.gossip.clock.Version;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.Bookmarks;
import sush.gossip.set.Delivery;
import sush.gossip.set.IdentityKeeper;
import sush.gossip.set.Replica;

/**
 * Forgetting against a reference model (bounded-gossip.md section 3, issue 39): any schedule of
 * sends, watermarks, pairwise syncs cut at random bytes, local forgetting and restarts (a
 * replica replaced by a newcomer bootstrapped from a peer's forgetful set) keeps every replica
 * holding what it still needs, and converges to one live set on every replica.
 *
 * <p>The rule under test is the one forgetting must follow: a replica forgets a message only
 * once it holds, from every member of the universe, a watermark (a message of that member's)
 * whose version is at or above the message's: every member has seen it. A member's newest
 * watermark (by the ordinal it carries, as the sleds' do: a restarted member's first one may be
 * concurrent with one its earlier life sent) is never forgotten. The checker does not trust the rule: at each first
 * forgetting it looks at every replica (an oracle no sled has) and records whether all had seen
 * the message; after every step, a replica lacking a message at or below its frontier must lack
 * one that was forgotten when all had seen it ("nothing live is forgotten"). A deliberately wrong
 * rule (forget whatever one's own watermark covers) is caught by the same checker.
 */
class RedactionPropertiesTest {
    private static final int STEPS = 120;

    static LongStream seeds() {
        return LongStream.range(0, 150);
    }

    /** How a replica chooses what to forget, from what it holds. */
    interface Rule {
        Set<Version> forgettable(World w, int replica);
    }

    /** The right rule: seen by every member (their watermarks say so). */
    static final Rule EVERY_MEMBER_SAW_IT = (w, k) -> w.forgettable(k, false);
    /** A wrong rule: this replica's own watermark covers it (others may not have seen it). */
    static final Rule MY_WATERMARK_SAW_IT = (w, k) -> w.forgettable(k, true);

    /** How replicas keep their identity over restarts (D-053). */
    enum Keeping {
        /** Every restart forks a provider's identity. */
        NONE,
        /** A restart takes its identity back from its bookmark when the provider covers its last send. */
        BOOKMARKS,
        /** Wrong: a bookmark that claims nothing was sent, so the provider always gives it back. */
        STALE
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void forgettingKeepsWhatIsNeededAndConverges(long seed) {
        // Odd seeds restart with bookmarks (D-053), even seeds fork a fresh identity each time.
        World w = World.run(seed, EVERY_MEMBER_SAW_IT, seed % 2 == 1 ? Keeping.BOOKMARKS : Keeping.NONE);
        assertNull(w.violation, () -> "seed " + seed + ": " + w.violation);
        w.quiesce();
        assertNull(w.violation, () -> "seed " + seed + " (quiet): " + w.violation);
        Set<Version> first = w.held(0);
        for (int k = 1; k < w.rack.replicas.size(); k++) {
            assertEquals(first, w.held(k), "seed " + seed + ": replica " + k + " holds the live set of replica 0");
        }
        for (Version v : w.sent.keySet()) {
            assertTrue(first.contains(v) || w.forgottenWhenAllSaw.contains(v),
                    () -> "seed " + seed + ": " + w.sent.get(v) + " is neither held nor forgotten when all saw it");
        }
        assertEquals(w.rack.replicas.size(), first.size(),
                () -> "seed " + seed + ": the quiet live set is the members' newest watermarks");
        for (int k = 0; k < w.rack.replicas.size(); k++) {
            assertDeliveredOnceInCausalOrder(w.rack.delivered.get(k), seed);
        }
    }

    @Test
    void theCheckerCatchesAWrongRule() {
        int caught = 0;
        for (long seed = 0; seed < 40; seed++) {
            World w = World.run(seed, MY_WATERMARK_SAW_IT);
            if (w.violation == null) {
                w.quiesce();
            }
            if (w.violation != null) {
                caught++;
            }
        }
        System.out.println("wrong rule caught in " + caught + " of 40");
        assertTrue(caught >= 10, "a rule that forgets what others have not seen is caught, in " + caught + " of 40");
    }

    @Test
    void theCheckerCatchesABookmarkThatClaimsTooLittle() {
        int caught = 0;
        for (long seed = 0; seed < 40; seed++) {
            World w = World.run(seed, EVERY_MEMBER_SAW_IT, Keeping.STALE);
            if (w.violation == null) {
                w.quiesce();
            }
            if (w.violation != null) {
                caught++;
            }
        }
        System.out.println("stale bookmarks caught in " + caught + " of 40");
        assertTrue(caught >= 10, "an identity given back over sends the provider never saw is caught, in " + caught
                + " of 40");
    }

    @Test
    void forgettingIsSilentOnTheWireAndNothingComesBack() {
        World w = World.run(7, EVERY_MEMBER_SAW_IT);
        w.quiesce();
        long forgotten = 0;
        for (Replica r : w.rack.replicas) {
            forgotten += r.forgottenCount();
            assertFalse(r.forgottenCeiling().isZero(), "every replica knows something was forgotten");
        }
        assertTrue(forgotten > 0, "the schedule forgot something");
        // A replica that still held everything (a fresh member that bootstrapped before any
        // forgetting would) gets nothing forgotten back from a sync with one that forgot.
        for (int k = 0; k < w.rack.replicas.size(); k++) {
            Rack.Outcomes o = w.rack.sync(k, (k + 1) % w.rack.replicas.size());
            assertNull(o.error());
            assertEquals(w.held(0), w.held(k), "a quiet sync brings nothing back");
        }
    }

    static IdentityKeeper keeper(Keeping keeping, Bookmarks bookmarks) {
        switch (keeping) {
            case BOOKMARKS:
                return bookmarks;
            case STALE:
                return bookmarks.stale();
            default:
                return IdentityKeeper.NONE;
        }
    }

    static void assertDeliveredOnceInCausalOrder(List<Delivery> delivered, long seed) {
        Set<Version> seen = new HashSet<>();
        long last = 0;
        for (int a = 0; a < delivered.size(); a++) {
            Delivery d = delivered.get(a);
            assertTrue(seen.add(d.version()), "seed " + seed + ": delivered once");
            assertTrue(d.checkpoint() > last, "checkpoints grow");
            last = d.checkpoint();
            for (int b = 0; b < a; b++) {
                assertFalse(d.version().lessThan(delivered.get(b).version()),
                        () -> "seed " + seed + ": " + d.version() + " delivered after a message it precedes");
            }
        }
    }

    /** A schedule's replicas, what was sent, and the checker's records. */
    static final class World {
        final Rack rack;
        final Random random;
        final Rule rule;
        /** Every message sent and not lost with a replica that crashed before passing it on. */
        final Map<Version, String> sent = new HashMap<>();
        /** Watermarks by version: the member that sent each. */
        final Map<Version, Integer> watermarks = new HashMap<>();
        /** Each watermark's ordinal: a member's count of watermarks, over all its lives. */
        final Map<Version, Integer> ordinals = new HashMap<>();
        final Map<Integer, Integer> lastOrdinal = new HashMap<>();
        final Set<Version> forgottenAnywhere = new HashSet<>();
        final Set<Version> forgottenWhenAllSaw = new HashSet<>();
        String violation;
        IntFunction<IdentityKeeper> keepers = k -> IdentityKeeper.NONE;

        private World(Rack rack, Random random, Rule rule) {
            this.rack = rack;
            this.random = random;
            this.rule = rule;
        }

        static World run(long seed, Rule rule) {
            return run(seed, rule, Keeping.NONE);
        }

        static World run(long seed, Rule rule, Keeping keeping) {
            Random random = new Random(seed);
            List<Bookmarks> bookmarks = new ArrayList<>();
            for (int k = 0; k < 7; k++) {
                bookmarks.add(new Bookmarks());
            }
            IntFunction<IdentityKeeper> keepers = k -> keeper(keeping, bookmarks.get(k));
            World w = new World(Rack.of(2 + random.nextInt(5), seed, keepers), random, rule);
            w.keepers = keepers;
            int n = w.rack.replicas.size();
            for (int k = 0; k < n; k++) {
                w.watermark(k);
            }
            for (int step = 0; step < STEPS && w.violation == null; step++) {
                int i = random.nextInt(n);
                int what = random.nextInt(100);
                if (what < 35) {
                    w.send(i, "m" + step + "@" + i);
                } else if (what < 50) {
                    w.watermark(i);
                } else if (what < 82) {
                    int j = (i + 1 + random.nextInt(n - 1)) % n;
                    MemoryLink[] links = MemoryLink.pair();
                    if (random.nextBoolean()) {
                        links[0].cutAfter(random.nextInt(600));
                    }
                    Rack.sync(w.rack.replicas.get(i), SyncSession.Intent.GOSSIP, w.rack.replicas.get(j),
                            SyncSession.Intent.GOSSIP, links);
                } else if (what < 95) {
                    w.forget(i);
                } else {
                    w.restart(i, (i + 1 + random.nextInt(n - 1)) % n);
                }
                w.check();
            }
            return w;
        }

        void send(int k, String text) {
            Version v = rack.replicas.get(k).send(text.getBytes(StandardCharsets.UTF_8));
            sent(v, text);
        }

        /** A new message's version names no other message that still exists anywhere. */
        private void sent(Version v, String text) {
            String before = sent.put(v, text);
            if (before != null && violation == null) {
                violation = "version " + v + " names two messages: " + before + " and " + text;
            }
        }

        void watermark(int k) {
            Version v = rack.replicas.get(k).send(("wm@" + k).getBytes(StandardCharsets.UTF_8));
            sent(v, "wm@" + k);
            watermarks.put(v, k);
            ordinals.put(v, lastOrdinal.merge(k, 1, Integer::sum));
        }

        /** Runs the rule at replica {@code k}; the oracle notes whether every replica had seen what it forgot. */
        void forget(int k) {
            Replica r = rack.replicas.get(k);
            Set<Version> chosen = rule.forgettable(this, k);
            for (Version v : chosen) {
                if (forgottenAnywhere.add(v)) {
                    boolean allSaw = rack.replicas.stream().allMatch(o -> v.leq(o.frontier()));
                    if (allSaw) {
                        forgottenWhenAllSaw.add(v);
                    }
                }
            }
            int n = r.forget(chosen);
            if (n != chosen.size()) {
                violation = "replica " + k + " forgot " + n + " of the " + chosen.size() + " messages it held";
            }
        }

        /**
         * What replica {@code k} may forget: held messages that a watermark of every member (or,
         * wrongly, its own) covers, except each member's newest watermark.
         */
        Set<Version> forgettable(int k, boolean onlyMine) {
            Replica r = rack.replicas.get(k);
            List<Version> heldWatermarks = new ArrayList<>();
            for (Delivery d : r.readFrom(0, Integer.MAX_VALUE)) {
                if (watermarks.containsKey(d.version())) {
                    heldWatermarks.add(d.version());
                }
            }
            Set<Version> out = new HashSet<>();
            for (Delivery d : r.readFrom(0, Integer.MAX_VALUE)) {
                Version v = d.version();
                boolean newest = watermarks.containsKey(v) && heldWatermarks.stream()
                        .noneMatch(o -> watermarks.get(o).equals(watermarks.get(v)) && ordinals.get(o) > ordinals.get(v));
                if (newest) {
                    continue;
                }
                boolean covered = true;
                for (int member = 0; member < rack.replicas.size() && covered; member++) {
                    if (onlyMine && member != k) {
                        continue;
                    }
                    int m = member;
                    covered = heldWatermarks.stream().anyMatch(o -> watermarks.get(o) == m && v.leq(o));
                }
                if (covered) {
                    out.add(v);
                }
            }
            return out;
        }

        /**
         * Replica {@code k} crashes and comes back as a newcomer bootstrapped from {@code from}:
         * its sends that no other replica had seen are lost with it.
         */
        void restart(int k, int from) {
            Replica newcomer = Replica.newcomer(keepers.apply(k));
            Rack.Outcomes o = Rack.sync(rack.replicas.get(from), SyncSession.Intent.GOSSIP, newcomer,
                    SyncSession.Intent.BOOTSTRAP, MemoryLink.pair());
            if (o.error() != null) {
                return; // a failed bootstrap changes nothing: the old replica stays
            }
            Replica old = rack.replicas.get(k);
            sent.keySet().removeIf(v -> v.leq(old.frontier())
                    && rack.replicas.stream().filter(r -> r != old).noneMatch(r -> v.leq(r.frontier())));
            rack.replace(k, newcomer);
            watermark(k);
        }

        /** Nothing live is forgotten: what a replica lacks at or below its frontier was forgotten when all had seen it. */
        void check() {
            if (violation != null) {
                return;
            }
            for (int k = 0; k < rack.replicas.size(); k++) {
                Replica r = rack.replicas.get(k);
                Version frontier = r.frontier();
                for (Map.Entry<Version, String> e : sent.entrySet()) {
                    if (e.getKey().leq(frontier) && !r.contains(e.getKey())
                            && !forgottenWhenAllSaw.contains(e.getKey())) {
                        violation = "replica " + k + " lacks " + e.getValue() + " below its frontier, and not every"
                                + " replica had seen it when it was forgotten";
                        return;
                    }
                }
            }
        }

        /**
         * The quiet end of a schedule: the ring synced twice (everything everywhere), a watermark
         * from every member, the ring twice more, a forgetting pass everywhere, and once more.
         */
        void quiesce() {
            int n = rack.replicas.size();
            for (int round = 0; round < 3 && violation == null; round++) {
                ring();
                ring();
                if (round == 0) {
                    for (int k = 0; k < n; k++) {
                        watermark(k);
                    }
                } else {
                    for (int k = 0; k < n; k++) {
                        forget(k);
                        check();
                    }
                }
            }
        }

        private void ring() {
            int n = rack.replicas.size();
            for (int i = 0; i < n && violation == null; i++) {
                Rack.Outcomes o = rack.sync(i, (i + 1) % n);
                if (o.error() != null) {
                    violation = "quiet sync failed: " + o.error();
                    return;
                }
                check();
            }
        }

        Set<Version> held(int k) {
            Set<Version> out = new HashSet<>();
            for (Delivery d : rack.replicas.get(k).readFrom(0, Integer.MAX_VALUE)) {
                out.add(d.version());
            }
            return out;
        }
    }
}
