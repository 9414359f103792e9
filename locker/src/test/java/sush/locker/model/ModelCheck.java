package sush.locker.model;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

import sush.locker.admission.Admission;
import sush.locker.admission.Verdict;

/**
 * The exhaustive model check of admission (verification.md section 2): breadth-first search with
 * a visited set over {@link World}, driving the real entry, admission, record builder and locker
 * over in-memory slots through {@link Transitions}. Invariant: no job of X executes twice, and a
 * crash never leaves the slots untrusted. Breadth first, so the first counterexample is a
 * shortest one. Run: {@code ./bench.sh modelcheck [--quick] [--states N]}.
 */
public final class ModelCheck {
    /**
     * The world's bounds.
     *
     * @param maxLives boots of X
     * @param maxEntries entries of X (boots and migrations)
     * @param maxResends jobs re-sent by an operator
     * @param recentCapacity universes the record keeps exactly (0 takes the Bloom path at once)
     * @param provisioned whether the slots start with a genesis record (else the sled is unprovisioned)
     * @param maxWipes times X's drives may be wiped (both slots lose their files) while it is down
     * @param maxStates the search stops after this many distinct states
     * @param parallelWrites whether a store writes every slot at once, as the daemon does (D-029):
     *     a crash inside it may leave any of the slots written and the others not; else one slot
     *     after the other, and a crash leaves a prefix of the slots written
     */
    public record Config(int maxLives, int maxEntries, int maxResends, int recentCapacity, boolean provisioned,
            int maxWipes, long maxStates, boolean parallelWrites) {
        /** The world of the CI slice and the command, with the given path and provisioning; the daemon's parallel writes. */
        public static Config standard(int recentCapacity, boolean provisioned, long maxStates) {
            return new Config(3, 4, 1, recentCapacity, provisioned, 1, maxStates, true);
        }

        /** This world with stores writing one slot after the other. */
        public Config sequential() {
            return new Config(maxLives, maxEntries, maxResends, recentCapacity, provisioned, maxWipes, maxStates, false);
        }
    }

    /** What a search found. */
    public record Report(Config config, long states, long transitions, int depth, boolean exhaustive, long screens,
            long refusals, long admits, List<String> counterexample, String violation, long laterSlotOnlyCrashes) {
        public boolean violated() {
            return !counterexample.isEmpty();
        }
    }

    private record Node(World world, Node parent, String action, int depth) {
    }

    private ModelCheck() {
    }

    public static Report run(Config c) {
        return run(c, Admission::decide);
    }

    /** As {@link #run(Config)} with another admission function: tests show the check catches a broken rule. */
    public static Report run(Config c, Function<Admission.Input, Verdict> admission) {
        Transitions t = new Transitions(c, admission);
        Set<ByteBuffer> visited = new HashSet<>();
        ArrayDeque<Node> queue = new ArrayDeque<>();
        World start = World.initial();
        if (c.provisioned()) {
            start.slots = t.provisioned();
        }
        visited.add(ByteBuffer.wrap(start.key()));
        queue.add(new Node(start, null, "start", 0));
        long transitions = 0;
        int depth = 0;
        while (!queue.isEmpty() && visited.size() < c.maxStates()) {
            Node n = queue.poll();
            depth = Math.max(depth, n.depth());
            for (Transitions.Step s : t.successors(n.world())) {
                transitions++;
                Node next = new Node(s.world(), n, s.action(), n.depth() + 1);
                if (s.violation() != null) {
                    return new Report(c, visited.size(), transitions, next.depth(), false, t.screens, t.refusals,
                            t.admits, trace(next), s.violation(), t.laterSlotOnly);
                }
                if (visited.add(ByteBuffer.wrap(s.world().key()))) {
                    queue.add(next);
                }
            }
        }
        return new Report(c, visited.size(), transitions, depth, queue.isEmpty(), t.screens, t.refusals, t.admits,
                List.of(), null, t.laterSlotOnly);
    }

    /**
     * A deliberately broken admission, to see the check catch it: {@code rule2} admits below the
     * floor, {@code rule7} admits superseded sessions, {@code rule8} admits instead of hopping.
     */
    static Function<Admission.Input, Verdict> broken(String rule) {
        return in -> {
            Verdict v = Admission.decide(in);
            boolean below = v instanceof Verdict.Skip
                    && ((Verdict.Skip) v).reason() == sush.projections.message.Message.SkipReason.BELOW_FLOOR;
            boolean superseded = v instanceof Verdict.Skip
                    && ((Verdict.Skip) v).reason() == sush.projections.message.Message.SkipReason.SUPERSEDED;
            boolean hop = v instanceof Verdict.Hop;
            boolean flip = rule.equals("rule2") ? below : rule.equals("rule7") ? superseded
                    : rule.equals("rule8") ? hop : false;
            if (!List.of("rule2", "rule7", "rule8").contains(rule)) {
                throw new IllegalArgumentException("--break takes rule2, rule7 or rule8");
            }
            return flip ? new Verdict.Admit(rule + " (broken on purpose)") : v;
        };
    }

    private static List<String> trace(Node n) {
        return trace(n, Node::parent, Node::action);
    }

    /** The actions from the start to {@code last}, following {@code parent} links (the start has none). */
    static <N> List<String> trace(N last, java.util.function.UnaryOperator<N> parent, Function<N, String> action) {
        List<String> out = new ArrayList<>();
        for (N k = last; parent.apply(k) != null; k = parent.apply(k)) {
            out.add(action.apply(k));
        }
        Collections.reverse(out);
        return out;
    }

    public static void main(String[] args) {
        int ordering = java.util.Arrays.asList(args).indexOf("--ordering");
        if (ordering >= 0 && ordering + 1 < args.length && args[ordering + 1].equals("signed")) {
            SignedModelCheck.main(args);
            return;
        }
        boolean quick = java.util.Arrays.asList(args).contains("--quick");
        long states = quick ? 200_000 : 2_000_000;
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--states")) {
                states = Long.parseLong(args[i + 1]);
            }
        }
        boolean sequential = java.util.Arrays.asList(args).contains("--sequential-writes");
        Function<Admission.Input, Verdict> admission = Admission::decide;
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--break")) {
                admission = broken(args[i + 1]);
            }
        }
        long total = 0;
        long violations = 0;
        long refusals = 0;
        long screens = 0;
        // The exact path (recent keeps both universes) and the Bloom path (recent keeps none), for
        // a provisioned sled and an unprovisioned one.
        for (boolean provisioned : new boolean[] {true, false}) {
            for (int capacity : new int[] {1, 0}) {
                Config c = Config.standard(capacity, provisioned, states / 4);
                if (sequential) {
                    c = c.sequential();
                }
                long t0 = System.nanoTime();
                Report r = run(c, admission);
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf(Locale.ROOT, "%s, recent capacity %d: %,d states, %,d transitions, complete to depth %d"
                        + "%s, %.1f s%n", provisioned ? "provisioned" : "unprovisioned", capacity, r.states(),
                        r.transitions(), r.depth(),
                        r.exhaustive() ? " (exhaustive)" : "", s);
                System.out.printf(Locale.ROOT, "  jobs screened %,d: admitted %,d, refused %,d (%.1f%%)%n", r.screens(),
                        r.admits(), r.refusals(), 100.0 * r.refusals() / Math.max(1, r.screens()));
                System.out.printf(Locale.ROOT, "  slot writes %s; crashes that left only a later slot written: %,d%n",
                        c.parallelWrites() ? "in parallel" : "one after the other", r.laterSlotOnlyCrashes());
                if (r.violated()) {
                    violations++;
                    System.out.println("  VIOLATION: " + r.violation());
                    r.counterexample().forEach(a -> System.out.println("    " + a));
                }
                total += r.states();
                refusals += r.refusals();
                screens += r.screens();
            }
        }
        System.out.printf(Locale.ROOT, "{\"bench\":\"modelcheck\",\"states\":%d,\"violations\":%d,"
                + "\"refused_sessions\":%d,\"screens\":%d}%n", total, violations, refusals, screens);
        if (violations > 0) {
            System.exit(1);
        }
    }
}
