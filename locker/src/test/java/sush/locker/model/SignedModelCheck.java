package sush.locker.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import sush.locker.admission.Admission;
import sush.locker.admission.SignedAdmission;
import sush.locker.admission.SignedCommit;
import sush.locker.admission.Verdict;
import sush.locker.record.SignedCodec;
import sush.locker.record.SignedRecord;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionRank;
import sush.projections.message.Message.SkipReason;

/**
 * The exhaustive model check of the {@code signed} ordering (ordered-sessions.md sections 4, 5
 * and 8): breadth-first search over one sled and two signers, driving the real admission
 * ({@link SignedAdmission}) and record builder ({@link SignedCommit}), each record round-tripped
 * through its codec. The world: signers issue grants from clocks that tick and may go back once,
 * one signer may reuse an epoch once, the sled learns grants in any order (gossip, or a client
 * re-submitting after a cold boot), restarts (memory lost, record kept, resumption), loses its
 * whole rack's gossip (a cold boot), and may have its drives wiped and be re-provisioned with a
 * fresh signer epoch, or wiped and left unprovisioned. Invariant: no job runs twice.
 * Run: {@code ./bench.sh modelcheck --ordering signed [--states N] [--break rule5|rule6|floor]}.
 */
public final class SignedModelCheck {
    /** Jobs per session. */
    static final int JOBS = 2;
    static final int SIGNERS = 2;
    private static final KeyId[] SIGNER_IDS = {key(1), key(2)};

    /**
     * The world's bounds.
     *
     * @param maxGrants sessions the signers may grant
     * @param maxClock the signers' clocks run from 0 to this
     * @param maxRestarts restarts of the sled (its memory lost, its record kept)
     * @param maxColdBoots whole-rack cold boots (every grant must be learned again)
     * @param maxWipes wipes of the sled's drives (re-provisioned, or left empty)
     * @param maxStates the search stops after this many distinct states
     */
    public record Config(int maxGrants, int maxClock, int maxRestarts, int maxColdBoots, int maxWipes,
            long maxStates) {
        public static Config standard(long maxStates) {
            return new Config(4, 4, 2, 1, 1, maxStates);
        }
    }

    /** What a search found. */
    public record Report(long states, long transitions, int depth, boolean exhaustive, long screens, long refusals,
            long admits, List<String> counterexample, String violation) {
        public boolean violated() {
            return !counterexample.isEmpty();
        }
    }

    /** A break of one rule on purpose (the check must catch it), or none. */
    public enum Break {
        NONE, RULE5, RULE6, FLOOR
    }

    /** A granted session: its place in the order. */
    private record Granted(int signer, int epoch, int nonce) {
    }

    /** One state of the world; immutable, compared by {@link #key()}. */
    private record State(int[] clock, int[] last, boolean[] clockWentBack, boolean reused, List<Granted> grants,
            Optional<SignedRecord> record, int known, Optional<SignedRecord> snapshot, int active, int head,
            int[] ran, int restarts, int coldBoots, int wipes) {
        String key() {
            return Arrays.toString(clock) + Arrays.toString(last) + Arrays.toString(clockWentBack) + reused + grants
                    + record + known + snapshot + active + "/" + head + Arrays.toString(ran) + restarts + coldBoots
                    + wipes;
        }
    }

    private record Node(State state, Node parent, String action, int depth) {
    }

    private SignedModelCheck() {
    }

    private static KeyId key(int b) {
        byte[] id = new byte[11];
        id[0] = (byte) b;
        return new KeyId(id);
    }

    static SessionRank rank(Granted g) {
        return new SessionRank(g.epoch(), SIGNER_IDS[g.signer()], session(g));
    }

    private static SessionId session(Granted g) {
        byte[] id = new byte[11];
        id[0] = (byte) g.signer();
        id[1] = (byte) g.epoch();
        id[2] = (byte) g.nonce();
        return new SessionId(id);
    }

    private static JobId job(Granted g, int position) {
        byte[] id = new byte[11];
        id[0] = (byte) g.signer();
        id[1] = (byte) g.epoch();
        id[2] = (byte) g.nonce();
        id[3] = (byte) (position + 1);
        return new JobId(id);
    }

    public static Report run(Config c, Break broken) {
        Set<String> visited = new HashSet<>();
        ArrayDeque<Node> queue = new ArrayDeque<>();
        State start = new State(new int[SIGNERS], new int[] {-1, -1}, new boolean[SIGNERS], false, List.of(),
                Optional.of(SignedRecord.provisioned("sled", 0)), 0, Optional.of(SignedRecord.provisioned("sled", 0)),
                -1, 0, new int[0], 0, 0, 0);
        visited.add(start.key());
        queue.add(new Node(start, null, "start", 0));
        long transitions = 0;
        long[] counts = new long[3];
        int depth = 0;
        while (!queue.isEmpty() && visited.size() < c.maxStates()) {
            Node n = queue.poll();
            depth = Math.max(depth, n.depth());
            for (Step s : successors(n.state(), c, broken, counts)) {
                transitions++;
                if (s.violation() != null) {
                    List<String> trace = trace(n);
                    trace.add(s.action());
                    return new Report(visited.size(), transitions, n.depth() + 1, false, counts[0], counts[1], counts[2],
                            trace, s.violation());
                }
                if (visited.add(s.state().key())) {
                    queue.add(new Node(s.state(), n, s.action(), n.depth() + 1));
                }
            }
        }
        return new Report(visited.size(), transitions, depth, queue.isEmpty(), counts[0], counts[1], counts[2],
                List.of(), null);
    }

    private record Step(State state, String action, String violation) {
    }

    private static List<Step> successors(State s, Config c, Break broken, long[] counts) {
        List<Step> out = new ArrayList<>();
        for (int k = 0; k < SIGNERS; k++) {
            if (s.clock()[k] < c.maxClock()) {
                int[] clock = s.clock().clone();
                clock[k]++;
                out.add(new Step(with(s, clock, s.last(), s.clockWentBack(), s.reused(), s.grants()), "signer " + k
                        + " clock " + clock[k], null));
            }
            if (!s.clockWentBack()[k] && s.clock()[k] >= 2) {
                int[] clock = s.clock().clone();
                clock[k] -= 2;
                boolean[] back = s.clockWentBack().clone();
                back[k] = true;
                out.add(new Step(with(s, clock, s.last(), back, s.reused(), s.grants()), "signer " + k
                        + " clock goes back to " + clock[k], null));
            }
            if (s.grants().size() < c.maxGrants()) {
                int epoch = Math.max(s.clock()[k], s.last()[k] + 1);
                int[] last = s.last().clone();
                last[k] = epoch;
                List<Granted> grants = new ArrayList<>(s.grants());
                grants.add(new Granted(k, epoch, 0));
                out.add(new Step(with(s, s.clock(), last, s.clockWentBack(), s.reused(), grants), "signer " + k
                        + " grants epoch " + epoch, null));
                if (!s.reused() && s.last()[k] >= 0) {
                    List<Granted> reuse = new ArrayList<>(s.grants());
                    reuse.add(new Granted(k, s.last()[k], 1));
                    out.add(new Step(with(s, s.clock(), s.last(), s.clockWentBack(), true, reuse), "signer " + k
                            + " reuses epoch " + s.last()[k], null));
                }
            }
        }
        for (int g = 0; g < s.grants().size(); g++) {
            if ((s.known() & (1 << g)) == 0) {
                out.add(new Step(learn(s, s.known() | (1 << g), broken), "the sled learns grant " + describe(s, g),
                        null));
            }
        }
        if (s.active() >= 0 && s.head() < JOBS) {
            out.add(screen(s, broken, counts));
        }
        if (s.restarts() < c.maxRestarts()) {
            out.add(new Step(boot(s, s.record(), s.known(), s.restarts() + 1, s.coldBoots(), s.wipes(), broken),
                    "the sled restarts", null));
        }
        if (s.coldBoots() < c.maxColdBoots()) {
            out.add(new Step(boot(s, s.record(), 0, s.restarts(), s.coldBoots() + 1, s.wipes(), broken),
                    "the whole rack boots cold (grants must be re-submitted)", null));
        }
        if (s.wipes() < c.maxWipes()) {
            // `sush signer epoch`: a fresh epoch, at least every epoch any signer issued.
            int floor = Math.max(0, Math.max(s.last()[0], s.last()[1]));
            out.add(new Step(boot(s, Optional.of(SignedRecord.provisioned("sled", floor)), s.known(), s.restarts(),
                    s.coldBoots(), s.wipes() + 1, broken), "the drives are wiped and re-provisioned at floor " + floor,
                    null));
            out.add(new Step(boot(s, Optional.empty(), s.known(), s.restarts(), s.coldBoots(), s.wipes() + 1, broken),
                    "the drives are wiped and left unprovisioned", null));
        }
        return out;
    }

    private static String describe(State s, int g) {
        Granted x = s.grants().get(g);
        return g + " (signer " + x.signer() + ", epoch " + x.epoch() + (x.nonce() > 0 ? ", reused" : "") + ")";
    }

    private static State with(State s, int[] clock, int[] last, boolean[] back, boolean reused, List<Granted> grants) {
        int[] ran = Arrays.copyOf(s.ran(), grants.size() * JOBS);
        return new State(clock, last, back, reused, List.copyOf(grants), s.record(), s.known(), s.snapshot(), s.active(),
                s.head(), ran, s.restarts(), s.coldBoots(), s.wipes());
    }

    /** A new life (or a cold boot, or a wipe): memory gone, the record read back, resumption. */
    private static State boot(State s, Optional<SignedRecord> record, int known, int restarts, int coldBoots, int wipes,
            Break broken) {
        State fresh = new State(s.clock(), s.last(), s.clockWentBack(), s.reused(), s.grants(), record, known, record, -1,
                0, s.ran(), restarts, coldBoots, wipes);
        return learn(fresh, known, broken);
    }

    /** The fold: the newest known grant is active; a new active session starts at its head (resumed). */
    private static State learn(State s, int known, Break broken) {
        int newest = -1;
        for (int g = 0; g < s.grants().size(); g++) {
            if ((known & (1 << g)) != 0 && (newest < 0 || rank(s.grants().get(g)).newerThan(rank(s.grants().get(newest))))) {
                newest = g;
            }
        }
        int head = s.head();
        if (newest != s.active()) {
            head = 0;
            if (newest >= 0 && broken != Break.RULE5) {
                Optional<sush.locker.record.SignedCommitted> c = s.snapshot().flatMap(SignedRecord::committed);
                if (c.isPresent() && c.get().session().equals(rank(s.grants().get(newest)))) {
                    head = position(s.grants().get(newest), c.get().job()) + 1;
                }
            }
        }
        return new State(s.clock(), s.last(), s.clockWentBack(), s.reused(), s.grants(), s.record(), known, s.snapshot(),
                newest, head, s.ran(), s.restarts(), s.coldBoots(), s.wipes());
    }

    private static int position(Granted g, JobId job) {
        for (int p = 0; p < JOBS; p++) {
            if (job(g, p).equals(job)) {
                return p;
            }
        }
        throw new IllegalStateException("a committed job of another session");
    }

    private static Step screen(State s, Break broken, long[] counts) {
        Granted g = s.grants().get(s.active());
        SessionRank r = rank(g);
        JobId j = job(g, s.head());
        // The store is always trusted here: an untrusted one refuses everything (rule 1, tested alone).
        Verdict v = decide(new SignedAdmission.Input(true, s.snapshot(), r, j, Admission.Position.AT_HEAD), broken);
        counts[0]++;
        String action = "screen job " + s.head() + " of grant " + s.active() + ": " + v;
        Optional<SignedRecord> record = s.record();
        int[] ran = s.ran();
        if (v instanceof Verdict.Admit) {
            counts[2]++;
            try {
                SignedRecord next = SignedCommit.build(record, new SignedCommit.Input(r, j, job(g, s.head() + 1)));
                // Written to both drives before the spawn: what a load reads back.
                record = Optional.of(SignedCodec.decode(SignedCodec.encode(next)));
            } catch (IllegalStateException | IllegalArgumentException | sush.locker.record.RecordException e) {
                return new Step(s, action, "the record builder refused an admitted job: " + e.getMessage());
            }
            ran = ran.clone();
            int at = s.active() * JOBS + s.head();
            ran[at]++;
            if (ran[at] > 1) {
                return new Step(s, action, "job " + s.head() + " of grant " + s.active() + " ran twice");
            }
        } else {
            counts[1]++;
        }
        return new Step(new State(s.clock(), s.last(), s.clockWentBack(), s.reused(), s.grants(), record, s.known(),
                s.snapshot(), s.active(), s.head() + 1, ran, s.restarts(), s.coldBoots(), s.wipes()), action, null);
    }

    private static Verdict decide(SignedAdmission.Input in, Break broken) {
        Verdict v = SignedAdmission.decide(in);
        if (v instanceof Verdict.Skip) {
            Verdict.Skip skip = (Verdict.Skip) v;
            if (broken == Break.RULE6 && skip.reason() == SkipReason.SUPERSEDED
                    || broken == Break.FLOOR && skip.reason() == SkipReason.BELOW_FLOOR && skip.rule().startsWith("3")) {
                return new Verdict.Admit(skip.rule() + " (broken on purpose)");
            }
        }
        return v;
    }

    private static List<String> trace(Node n) {
        return ModelCheck.trace(n, Node::parent, Node::action);
    }

    public static void main(String[] args) {
        long states = Arrays.asList(args).contains("--quick") ? 200_000 : 2_000_000;
        Break broken = Break.NONE;
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--states")) {
                states = Long.parseLong(args[i + 1]);
            } else if (args[i].equals("--break")) {
                broken = Break.valueOf(args[i + 1].toUpperCase(Locale.ROOT));
            }
        }
        long t0 = System.nanoTime();
        Report r = run(Config.standard(states), broken);
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "signed ordering: %,d states, %,d transitions, complete to depth %d%s, %.1f s%n",
                r.states(), r.transitions(), r.depth(), r.exhaustive() ? " (exhaustive)" : "", secs);
        System.out.printf(Locale.ROOT, "  jobs screened %,d: admitted %,d, refused %,d%n", r.screens(), r.admits(),
                r.refusals());
        if (r.violated()) {
            System.out.println("  VIOLATION: " + r.violation());
            r.counterexample().forEach(a -> System.out.println("    " + a));
        }
        System.out.printf(Locale.ROOT, "{\"bench\":\"modelcheck\",\"ordering\":\"signed\",\"states\":%d,"
                + "\"violations\":%d,\"screens\":%d,\"refused\":%d}%n", r.states(), r.violated() ? 1 : 0, r.screens(),
                r.refusals());
        if (r.violated()) {
            System.exit(1);
        }
    }
}
