package sush.locker.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.SledProjection;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * The exhaustive chain check (issue 13, D-021): every operator script of a session with up to
 * {@code maxJobs} jobs (for this sled or another, sequential or concurrent), up to
 * {@code maxBurns} burns of any position (the next one, the first, any job's), at most one stop
 * and one re-delivered message; for each, every delivery order interleaved with job endings and
 * one crash and restart (resuming at whatever job the record holds then, replaying what was
 * delivered). It drives the real {@link SledProjection} (and so the real chain) through
 * {@link ChainSled}, the runtime's head rules. Invariants: no job starts twice on the sled, the
 * head never stands at or before a position the sled started (in any life), and runs without a
 * crash that saw the same messages and started the same jobs end on the same head. States are
 * merged by the fold's chain state and the sled's. Run: {@code ./bench.sh chaincheck}.
 */
public final class ChainCheck {
    static final Sled ME = new Sled("913-0000019:CHECK0", 0);
    static final String OTHER = "913-0000019:CHECK1";
    static final SessionId S = SessionIds.compute(ME.baseboard(), new byte[SessionIds.NONCE_BYTES], new byte[] {1});
    static final Message.SessionStart START = new Message.SessionStart(S, ME.baseboard(),
            new byte[SessionIds.NONCE_BYTES], new byte[] {1}, "operator");

    /**
     * The world's bounds.
     *
     * @param maxJobs jobs the operator signs
     * @param maxBurns burns the operator sends (of any position)
     * @param stops whether one stop of a job may be sent
     * @param redeliver whether one message may be delivered a second time (once per run, any message
     *     already delivered: the operator's re-send, or gossip's copy from a second universe)
     * @param crash whether the sled may crash once and restart
     * @param maxStates the search stops after this many distinct states (over all worlds)
     */
    public record Config(int maxJobs, int maxBurns, boolean stops, boolean redeliver, boolean crash, long maxStates) {
        /** The world of the issue: 4 jobs, 2 burns, a stop, a re-delivery, a crash. */
        public static Config standard(long maxStates) {
            return new Config(4, 2, true, true, true, maxStates);
        }
    }

    /** What a search found. */
    public record Report(Config config, long worlds, long states, long terminals, boolean exhaustive,
            List<String> counterexample, String violation) {
        public boolean violated() {
            return violation != null;
        }
    }

    /** One operator request in a script. */
    sealed interface Op {
        /** A job at the operator's next position. */
        record Job(boolean mine, boolean concurrent) implements Op {
        }

        /** A burn of the first position ({@code at} 0) or of job {@code at - 1}'s position. */
        record Burn(int at) implements Op {
        }

        /** A burn of the operator's next free position (the ordinary skip). */
        record BurnNext() implements Op {
        }

        /** A stop of job {@code job}. */
        record Stop(int job) implements Op {
        }
    }

    /**
     * A world: the operator's messages (each concurrent with the others, so any delivery order
     * is causal) and the chain's tree (the parent of every position the script names).
     */
    record World(List<Op> script, List<Message> messages, List<SignedJob> jobs, Map<JobId, JobId> parent) {
        String describe() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < messages.size(); i++) {
                b.append("\n  m").append(i).append(' ').append(label(messages.get(i)));
            }
            return "script " + script + b;
        }

        String label(Message m) {
            if (m instanceof Message.JobStart) {
                SignedJob j = ((Message.JobStart) m).job();
                return "job " + jobs.indexOf(j) + " (" + (j.request().target().equals("0") ? "mine" : "other's")
                        + (j.request().concurrent() ? ", concurrent" : "") + ")";
            } else if (m instanceof Message.JobSkip) {
                return "burn of " + position(((Message.JobSkip) m).position());
            } else if (m instanceof Message.JobStop) {
                return "stop of " + position(((Message.JobStop) m).job());
            }
            return m.getClass().getSimpleName();
        }

        String position(JobId p) {
            for (int i = 0; i < jobs.size(); i++) {
                if (jobs.get(i).request().job().equals(p)) {
                    return "job " + i + "'s position";
                }
            }
            if (p.equals(Chain.first(S))) {
                return "the first position";
            }
            for (int i = 0; i < jobs.size(); i++) {
                if (jobs.get(i).request().successor().equals(p)) {
                    return "the position after job " + i;
                }
            }
            JobId up = parent.get(p);
            return up != null && Chain.afterBurn(up).equals(p) ? "the position after the burn of " + position(up)
                    : p.codephrase();
        }

        /** Whether the script stops {@code job}. */
        boolean stopped(JobId job) {
            return messages.stream().anyMatch(m -> m instanceof Message.JobStop && ((Message.JobStop) m).job().equals(job));
        }

        /** Whether {@code a} is {@code b} or one of its ancestors in the chain's tree. */
        boolean atOrBefore(JobId a, JobId b) {
            JobId at = b;
            for (int steps = 0; at != null && steps <= parent.size() + 1; steps++) {
                if (at.equals(a)) {
                    return true;
                }
                at = parent.get(at);
            }
            return false;
        }
    }

    /**
     * Whether the rack may settle the operator's jobs, in chain order, once this sled passed and
     * ended them ({@link ChainSled#SETTLE}, D-058): the fold, its chain and the head rules forget
     * them as the runtime does. A run that settled is compared with no other (what it forgot is
     * an input the others did not have, as a crash is); every other invariant holds.
     */
    static volatile boolean settling = true;

    /** Whether {@link #run} reports its progress on stderr (the command line's long runs). */
    static volatile boolean progress;
    /** Whether every forked state is compared with a replay of its path (the CI slice). */
    static volatile boolean checkCopies;
    /** The worlds of each bounds (jobs, burns, stops) computed so far: read only, shared by every search. */
    private static final Map<List<Object>, List<World>> WORLDS = new ConcurrentHashMap<>();

    private ChainCheck() {
    }

    public static Report run(Config c) {
        return run(c, 1);
    }

    /**
     * Searches every world, {@code threads} worlds at a time. Worlds are independent searches;
     * the report's counts are sums, and of several violations the one of the earliest world (in
     * the shortest-first order) is reported, so the output does not depend on the thread count.
     */
    public static Report run(Config c, int threads) {
        return run(c, threads, 1);
    }

    /** As {@link #run(Config, int)}, over every {@code sample}-th world only (an estimate: not exhaustive). */
    public static Report run(Config c, int threads, int sample) {
        return run(c, threads, sample, HeadBreak.NONE);
    }

    /** As {@link #run(Config, int)} with a head rule broken on purpose: tests show the check catches it. */
    static Report run(Config c, int threads, HeadBreak broken) {
        return run(c, threads, 1, broken);
    }

    private static Report run(Config c, int threads, int sample, HeadBreak broken) {
        List<World> every = canonicalWorlds(c);
        List<World> all = new ArrayList<>();
        for (int i = 0; i < every.size(); i += Math.max(1, sample)) {
            all.add(every.get(i));
        }
        java.util.concurrent.atomic.AtomicLong states = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong terminals = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong worlds = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger firstViolation = new java.util.concurrent.atomic.AtomicInteger(
                Integer.MAX_VALUE);
        java.util.concurrent.atomic.AtomicBoolean bounded = new java.util.concurrent.atomic.AtomicBoolean();
        Map<Integer, Search> violations = new java.util.concurrent.ConcurrentHashMap<>();
        Runnable worker = () -> {
            for (int i = next.getAndIncrement(); i < all.size(); i = next.getAndIncrement()) {
                if (i > firstViolation.get() || bounded.get()) {
                    return;
                }
                Search s = new Search(all.get(i), c, c.maxStates() - states.get(), broken);
                s.run();
                long done = worlds.incrementAndGet();
                if (progress && done % 10_000 == 0) {
                    System.err.printf(Locale.ROOT, "  %d of %d worlds, %d states%n", done, all.size(), states.get());
                }
                terminals.addAndGet(s.terminals);
                if (states.addAndGet(s.visited.size()) >= c.maxStates()) {
                    bounded.set(true);
                }
                if (s.violation != null) {
                    violations.put(i, s);
                    firstViolation.accumulateAndGet(i, Math::min);
                }
            }
        };
        List<Thread> pool = new ArrayList<>();
        for (int t = 0; t < Math.max(1, threads); t++) {
            Thread th = new Thread(worker, "chaincheck-" + t);
            th.start();
            pool.add(th);
        }
        for (Thread th : pool) {
            try {
                th.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        if (!violations.isEmpty()) {
            int i = firstViolation.get();
            Search s = violations.get(i);
            List<String> trace = new ArrayList<>(List.of(all.get(i).describe()));
            trace.addAll(s.counterexample);
            return new Report(c, worlds.get(), states.get(), terminals.get(), false, trace, s.violation);
        }
        return new Report(c, worlds.get(), states.get(), terminals.get(),
                !bounded.get() && worlds.get() == every.size(), List.of(), null);
    }

    /**
     * Every world of the bounds once. All of a script's messages are concurrent (any delivery
     * order is causal), so two scripts that send the same messages are one world: only the order
     * of jobs and of burns of the next free position shapes the chain, a burn of a signed
     * position or a stop may stand anywhere after it. Worlds are keyed by their message
     * multiset (the encoded messages, sorted) and kept in shortest-first order: a counterexample
     * is found with the fewest messages, and a bounded run covers every small world first.
     * Computed once per bounds (the CI slice searches the same worlds once per broken rule).
     */
    static List<World> canonicalWorlds(Config c) {
        return WORLDS.computeIfAbsent(List.of(c.maxJobs(), c.maxBurns(), c.stops()), k -> enumerate(c));
    }

    /** Every world of the bounds once, in shortest-first order (see {@link #canonicalWorlds}). */
    private static List<World> enumerate(Config c) {
        List<List<Op>> scripts = new ArrayList<>();
        scripts(c, new ArrayList<>(), 0, 0, false, scripts);
        scripts.sort(java.util.Comparator.comparingInt(List::size));
        Set<String> seen = new HashSet<>();
        List<World> out = new ArrayList<>();
        for (List<Op> script : scripts) {
            for (World w : worlds(script)) {
                List<String> encoded = new ArrayList<>();
                for (Message m : w.messages()) {
                    encoded.add(java.util.HexFormat.of().formatHex(sush.projections.message.MessageCodec.encode(m)));
                }
                java.util.Collections.sort(encoded);
                if (seen.add(String.join(",", encoded))) {
                    out.add(w);
                }
            }
        }
        out.sort(java.util.Comparator.comparingInt(w -> w.messages().size()));
        return List.copyOf(out);
    }

    /** Every script within the bounds that has a job for this sled and ends with a job or a stop. */
    private static void scripts(Config c, List<Op> prefix, int jobs, int burns, boolean stopped, List<List<Op>> out) {
        boolean mine = prefix.stream().anyMatch(o -> o instanceof Op.Job && ((Op.Job) o).mine());
        if (mine && !(prefix.get(prefix.size() - 1) instanceof Op.BurnNext)) {
            out.add(List.copyOf(prefix));
        }
        if (jobs < c.maxJobs()) {
            for (Op o : new Op[] {new Op.Job(true, false), new Op.Job(true, true), new Op.Job(false, false)}) {
                prefix.add(o);
                scripts(c, prefix, jobs + 1, burns, stopped, out);
                prefix.remove(prefix.size() - 1);
            }
        }
        if (burns < c.maxBurns()) {
            List<Op> options = new ArrayList<>();
            options.add(new Op.BurnNext());
            for (int at = 0; at <= jobs; at++) {
                options.add(new Op.Burn(at));
            }
            for (Op o : options) {
                prefix.add(o);
                scripts(c, prefix, jobs, burns + 1, stopped, out);
                prefix.remove(prefix.size() - 1);
            }
        }
        if (c.stops() && !stopped && jobs > 0) {
            for (int j = 0; j < jobs; j++) {
                prefix.add(new Op.Stop(j));
                scripts(c, prefix, jobs, burns, true, out);
                prefix.remove(prefix.size() - 1);
            }
        }
    }

    /** The script's world (none if the script burns one position twice: that is a re-delivery). */
    private static List<World> worlds(List<Op> script) {
        List<Message> messages = new ArrayList<>();
        List<SignedJob> jobs = new ArrayList<>();
        Map<JobId, JobId> parent = new HashMap<>();
        Set<JobId> burnt = new HashSet<>();
        JobId next = Chain.first(S);
        for (Op o : script) {
            if (o instanceof Op.Job) {
                Op.Job j = (Op.Job) o;
                JobRequest r = new JobRequest(S, next, "job " + jobs.size(), j.mine() ? "0" : "1", j.concurrent());
                SignedJob job = Jobs.unsigned(r);
                jobs.add(job);
                messages.add(new Message.JobStart(job));
                parent.put(r.successor(), next);
                next = r.successor();
            } else if (o instanceof Op.Stop) {
                messages.add(new Message.JobStop(jobs.get(((Op.Stop) o).job()).request().job(), "operator"));
            } else {
                JobId p = o instanceof Op.BurnNext ? next : ((Op.Burn) o).at() == 0 ? Chain.first(S)
                        : jobs.get(((Op.Burn) o).at() - 1).request().job();
                if (!burnt.add(p)) {
                    return List.of();
                }
                messages.add(new Message.JobSkip(S, p, "operator"));
                parent.put(Chain.afterBurn(p), p);
                if (p.equals(next)) {
                    next = Chain.afterBurn(next);
                }
            }
        }
        return List.of(new World(script, List.copyOf(messages), List.copyOf(jobs), parent));
    }

    /** Depth-first search of one world, states merged by their keys; each state is rebuilt by replaying its path. */
    private static final class Search {
        final World world;
        final Config config;
        final long budget;
        final HeadBreak broken;
        final Set<String> visited = new HashSet<>();
        /** Without a crash: (messages delivered, jobs started) -> the head it ended on, and the path. */
        final Map<String, String[]> heads = new HashMap<>();
        long terminals;
        String violation;
        List<String> counterexample = List.of();

        Search(World world, Config config, long budget, HeadBreak broken) {
            this.world = world;
            this.config = config;
            this.budget = budget;
            this.broken = broken;
        }

        void run() {
            visit(new ChainSled(world, broken), new int[0]);
        }

        /**
         * Depth first. Every child but the last acts on a fork of the sled ({@link
         * SledProjection#copy()}); the last goes on with the parent's sled itself. With {@code
         * checkCopies} (the CI slice) each fork is also compared with a replay of its path.
         */
        private void visit(ChainSled sled, int[] path) {
            if (violation != null || visited.size() >= budget) {
                return;
            }
            if (sled.violation != null) {
                fail(sled.violation, path);
                return;
            }
            if (!visited.add(sled.key())) {
                return;
            }
            List<Integer> actions = sled.actions(config.crash(), config.redeliver());
            if (actions.isEmpty()) {
                terminal(sled, path);
            }
            for (int k = 0; k < actions.size() && violation == null; k++) {
                int[] longer = java.util.Arrays.copyOf(path, path.length + 1);
                longer[path.length] = actions.get(k);
                ChainSled child = k == actions.size() - 1 ? sled : sled.copy();
                child.act(actions.get(k));
                if (checkCopies && child != sled) {
                    ChainSled replayed = new ChainSled(world, broken);
                    for (int a : longer) {
                        replayed.act(a);
                    }
                    if (!replayed.key().equals(child.key())) {
                        fail("a forked sled differs from its replay:\n  fork   " + child.key() + "\n  replay "
                                + replayed.key(), longer);
                        return;
                    }
                }
                visit(child, longer);
            }
        }

        private void terminal(ChainSled sled, int[] path) {
            terminals++;
            if (sled.crashed || sled.settledAny) {
                return;
            }
            String key = sled.deliveredSet() + "|started=" + sled.startedSet();
            String[] other = heads.putIfAbsent(key, new String[] {sled.head(), String.join("\n", describe(path))});
            if (other != null && !other[0].equals(sled.head())) {
                violation = "two runs without a crash saw the same messages, started the same jobs and ended on "
                        + "different heads: " + other[0] + " and " + sled.head() + "\nthe other run:\n" + other[1];
                counterexample = describe(path);
            }
        }

        private void fail(String why, int[] path) {
            violation = why;
            counterexample = describe(path);
        }

        private List<String> describe(int[] path) {
            ChainSled sled = new ChainSled(world, broken);
            List<String> out = new ArrayList<>();
            for (int a : path) {
                out.add(sled.describe(a));
                sled.act(a);
            }
            return out;
        }
    }

    public static void main(String[] args) {
        long maxStates = 1_000_000_000;
        int jobs = 4;
        int threads = Runtime.getRuntime().availableProcessors();
        int sample = 1;
        HeadBreak broken = HeadBreak.NONE;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--states" -> maxStates = Long.parseLong(args[++i]);
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--quick" -> jobs = 3;
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--sample" -> sample = Integer.parseInt(args[++i]);
                case "--break" -> broken = HeadBreak.valueOf(args[++i].toUpperCase(Locale.ROOT));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --states N, --jobs N, --threads N, --sample K, --quick, --break RULE)");
            }
        }
        Config c = new Config(jobs, 2, true, true, true, maxStates);
        long t0 = System.nanoTime();
        progress = true;
        Report r = run(c, threads, sample, broken);
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "chain check: up to %d jobs, %d burns, a stop, a re-delivery, a crash%n",
                c.maxJobs(), c.maxBurns());
        System.out.printf(Locale.ROOT, "  worlds %d, states %d, terminal states %d, %s, %.1f s%n", r.worlds(),
                r.states(), r.terminals(), r.exhaustive() ? "exhaustive"
                : sample > 1 ? "every " + sample + "th world only" : "stopped at the state bound", seconds);
        if (r.violated()) {
            System.out.println("VIOLATION: " + r.violation());
            r.counterexample().forEach(l -> System.out.println("  " + l));
        } else {
            System.out.println("  violations 0");
        }
        System.out.printf(Locale.ROOT, "{\"bench\":\"chaincheck\",\"worlds\":%d,\"states\":%d,\"terminals\":%d,"
                + "\"exhaustive\":%b,\"violations\":%d,\"seconds\":%.1f}%n", r.worlds(), r.states(), r.terminals(),
                r.exhaustive(), r.violated() ? 1 : 0, seconds);
        System.exit(r.violated() ? 1 : 0);
    }

    /** The version every message carries: the chain's fold reads no order from versions. */
    static final Version V = Version.ZERO.tick(Id.ONE);
}
