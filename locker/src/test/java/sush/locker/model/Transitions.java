package sush.locker.model;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.locker.admission.Admission;
import sush.locker.record.RecordFormat;
import sush.locker.admission.Commit;
import sush.locker.admission.Entry;
import sush.locker.admission.FloorCause;
import sush.locker.admission.Verdict;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.locker.record.Outcome;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.locker.store.MemorySlot;
import sush.projections.fold.JobStatus;
import sush.projections.id.Chain;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.message.Message.SkipReason;

/** Every move of the model's world from one state: operators, the network, and X's life. */
final class Transitions {
    static final String ME = "913-0000019:MODEL000001";
    private static final String[] NAMES = {"A", "B", "C"};

    /** One move: its label, the world after it, and the broken invariant if it broke one. */
    record Step(String action, World world, String violation) {
    }

    /** The process dies inside a slot write. */
    private static final class Crash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** Where a store dies: the slot writes (by index, re-stamp first) that never happen. */
        record Plan(long dies, String label) {
        }

        Crash() {
            super(null, null, false, false);
        }
    }

    private final ModelCheck.Config config;
    private final Function<Admission.Input, Verdict> admission;
    private final List<List<Id>> ids = new ArrayList<>();
    private final SessionId[] sessions = new SessionId[World.SESSIONS];
    private final JobId[][] jobs = new JobId[World.SESSIONS][World.JOBS + 1];
    long screens;
    long refusals;
    long admits;
    /** Crashes inside a parallel store that left a later slot written and an earlier one not. */
    long laterSlotOnly;

    Transitions(ModelCheck.Config config, Function<Admission.Input, Verdict> admission) {
        this.config = config;
        this.admission = admission;
        for (int u = 0; u < World.UNIVERSES; u++) {
            ids.add(Id.ONE.fork(World.SIDES + config.maxEntries()));
        }
        for (int s = 0; s < World.SESSIONS; s++) {
            byte[] nonce = new byte[SessionIds.NONCE_BYTES];
            nonce[0] = (byte) s;
            sessions[s] = SessionIds.compute("913-0000019:OPERATOR" + s, nonce, NAMES[s].getBytes(StandardCharsets.UTF_8));
            jobs[s][0] = Chain.first(sessions[s]);
            for (int j = 1; j <= World.JOBS; j++) {
                jobs[s][j] = Chain.next(Hashes.sha3("model-job", jobs[s][j - 1].toBytes()));
            }
        }
    }

    List<Step> successors(World w) {
        List<Step> out = new ArrayList<>();
        operators(w, out);
        if (w.alive) {
            network(w, out);
            endings(w, out);
            migrations(w, out);
            World dead = w.copy();
            crash(dead);
            out.add(new Step("X crashes", dead, null));
        } else {
            if (w.lives < config.maxLives() && w.entries < config.maxEntries()) {
                boots(w, out);
            }
            if (w.wipes < config.maxWipes() && (w.slots[0] != null || w.slots[1] != null)) {
                World n = w.copy();
                n.wipes++;
                n.slots = new byte[2][];
                out.add(new Step("X's drives are wiped", n, null));
            }
        }
        return out;
    }

    private void operators(World w, List<Step> out) {
        for (int s = 0; s < World.SESSIONS; s++) {
            int u = World.SESSION_UNIVERSE[s];
            int side = World.SESSION_SIDE[s];
            if (w.start[s] == null) {
                // The start and its three signed jobs, submitted together on the starter's side.
                World n = w.copy();
                n.know[u][side] = n.know[u][side].tick(ids.get(u).get(side));
                n.start[s] = n.know[u][side];
                n.log.get(u).add(new World.Request(n.start[s], s, -1));
                for (int j = 0; j < World.JOBS; j++) {
                    n.know[u][side] = n.know[u][side].tick(ids.get(u).get(side));
                    n.log.get(u).add(new World.Request(n.know[u][side], s, j));
                }
                n.posted[s] = World.JOBS;
                out.add(new Step("operator starts session " + NAMES[s] + " (jobs " + NAMES[s] + "0.." + NAMES[s]
                        + (World.JOBS - 1) + ") in U" + (u + 1) + " side " + side, n, null));
                if (s == 0 && w.alive && w.universe == u) {
                    // Accepted through X itself: until X syncs, only X knows the start; a crash
                    // before that loses it from the universe (at-most-once.md section 10, 16).
                    World x = w.copy();
                    x.front = x.front.tick(myId(x));
                    x.start[s] = x.front;
                    x.log.get(u).add(new World.Request(x.start[s], s, -1));
                    for (int j = 0; j < World.JOBS; j++) {
                        x.front = x.front.tick(myId(x));
                        x.log.get(u).add(new World.Request(x.front, s, j));
                    }
                    x.posted[s] = World.JOBS;
                    screenAll("operator starts session " + NAMES[s] + " through X", x, out);
                }
            }
            // A re-sent first job: the case resumption and AlreadyHandled exist for.
            for (int j = 0; w.resends < config.maxResends() && j < Math.min(1, w.posted[s]); j++) {
                for (int d = 0; d < World.SIDES; d++) {
                    World n = w.copy();
                    n.know[u][d] = n.know[u][d].tick(ids.get(u).get(d));
                    n.log.get(u).add(new World.Request(n.know[u][d], s, j));
                    n.resends++;
                    out.add(new Step("operator re-sends job " + NAMES[s] + j + " on side " + d + " of U" + (u + 1), n,
                            null));
                }
            }
        }
        for (int u = 0; u < World.UNIVERSES; u++) {
            if (!w.know[u][0].equals(w.know[u][1])) {
                World n = w.copy();
                Version joined = n.know[u][0].join(n.know[u][1]);
                n.know[u][0] = joined;
                n.know[u][1] = joined;
                out.add(new Step("U" + (u + 1) + " heals its partition", n, null));
            }
        }
    }

    private void network(World w, List<Step> out) {
        Version side = w.know[w.universe][w.side];
        if (!side.equals(w.front)) {
            // A sync session: both ends leave with the join; then X screens what it now sees.
            World n = w.copy();
            n.front = n.front.join(side);
            n.know[n.universe][n.side] = n.front;
            screenAll("X syncs with side " + w.side + " of U" + (w.universe + 1), n, out);
        }
        World moved = w.copy();
        moved.side = 1 - w.side;
        out.add(new Step("X's peers change to side " + moved.side + " of U" + (w.universe + 1), moved, null));
    }

    private void migrations(World w, List<Step> out) {
        if (w.entries >= config.maxEntries()) {
            return;
        }
        int u = 1 - w.universe;
        for (int side = 0; side < World.SIDES; side++) {
            for (boolean lag : new boolean[] {false}) {
                World n = w.copy();
                enter(n, u, side, lag);
                screenAll("X migrates into U" + (u + 1) + " side " + side + (lag ? " via an empty peer" : ""), n, out);
            }
        }
    }

    private void boots(World w, List<Step> out) {
        for (int u = 0; u < World.UNIVERSES; u++) {
            for (int side = 0; side < World.SIDES; side++) {
                for (boolean lag : new boolean[] {false, true}) {
                    World n = w.copy();
                    n.lives++;
                    try {
                        Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, ME, List.copyOf(slots(n)), Entropy.seeded(n.lives));
                        n.locker = l.memory();
                        l.close();
                    } catch (LockerException e) {
                        throw new IllegalStateException(e);
                    }
                    n.alive = true;
                    String violation = n.locker.load().trusted() ? null
                            : "crashes left the slots untrusted: " + n.locker.load().reason();
                    String label = "X boots (life " + n.lives + ", " + n.locker.load().verdict() + ") into U" + (u + 1)
                            + " side " + side + (lag ? " via an empty peer" : "");
                    if (violation != null) {
                        out.add(new Step(label, n, violation));
                        continue;
                    }
                    enter(n, u, side, lag);
                    screenAll(label, n, out);
                }
            }
        }
    }

    /** Section 3, in order: drain (stores are synchronous here), snapshot, arrival, announcement, floor, birth. */
    private void enter(World n, int u, int side, boolean lag) {
        Id me = ids.get(u).get(World.SIDES + n.entries);
        n.entries++;
        n.universe = u;
        n.side = side;
        n.front = lag ? Version.ZERO : n.know[u][side];
        Entry e = Entry.enter(n.locker.newest(), World.network(u), config.recentCapacity());
        n.snapshot = e.snapshot();
        n.front = n.front.tick(me);
        n.floor = Optional.empty();
        if (e.floor().isPresent()) {
            if (e.floor().get() == FloorCause.UNIVERSE_FLIP_FLOP) {
                n.front = n.front.tick(me);
            }
            n.floor = Optional.of(n.front);
        }
        n.committedAboveFloor = false;
        java.util.Arrays.fill(n.head, -1);
    }

    private Id myId(World w) {
        return ids.get(w.universe).get(World.SIDES + w.entries - 1);
    }

    /** The active session X sees: the visible start strictly dominating every other visible one. */
    private int active(World w) {
        int found = -1;
        for (int s = 0; s < World.SESSIONS; s++) {
            if (World.SESSION_UNIVERSE[s] != w.universe || w.start[s] == null || !w.start[s].leq(w.front)) {
                continue;
            }
            boolean dominates = true;
            for (int t = 0; t < World.SESSIONS; t++) {
                if (t != s && World.SESSION_UNIVERSE[t] == w.universe && w.start[t] != null
                        && w.start[t].leq(w.front) && !w.start[t].lessThan(w.start[s])) {
                    dominates = false;
                }
            }
            if (dominates) {
                found = s;
            }
        }
        return found;
    }

    private boolean visible(World w, int s, int j) {
        for (World.Request r : w.log.get(w.universe)) {
            if (r.session() == s && r.job() == j && r.version().leq(w.front)) {
                return true;
            }
        }
        return false;
    }

    /**
     * X screens every job that reaches its head until none can move (the sled acts as soon as it
     * knows; when it learns things is the network's choice). Every commit branches: a crash before
     * each slot write, or the launch.
     */
    private void screenAll(String label, World n, List<Step> out) {
        StringBuilder did = new StringBuilder(label);
        while (true) {
            int s = active(n);
            if (s < 0) {
                break;
            }
            if (n.head[s] < 0) {
                // Section 6: resumption of the snapshot's committed session, before any screening.
                n.head[s] = 0;
                Optional<Committed> c = n.snapshot.filter(r -> r.network().equals(World.network(n.universe)))
                        .flatMap(BoundaryRecord::committed).filter(k -> k.session().equals(sessions[s]));
                if (c.isPresent()) {
                    n.head[s] = index(s, c.get().successor());
                    did.append("; resumes ").append(NAMES[s]).append(" at ").append(NAMES[s]).append(n.head[s]);
                }
            }
            int h = n.head[s];
            if (h >= World.JOBS || !visible(n, s, h)) {
                break;
            }
            screens++;
            Verdict v = admission.apply(new Admission.Input(n.locker.load().trusted(), n.floor, n.snapshot,
                    World.network(n.universe), sessions[s], n.start[s], jobs[s][h], Admission.Position.AT_HEAD));
            String job = NAMES[s] + h;
            if (v instanceof Verdict.Skip || v instanceof Verdict.Adjudicate) {
                if (v instanceof Verdict.Skip && ((Verdict.Skip) v).reason() != SkipReason.ALREADY_HANDLED) {
                    refusals++;
                }
                n.head[s]++;
                did.append("; ").append(job).append(' ').append(v instanceof Verdict.Skip
                        ? "skipped " + ((Verdict.Skip) v).reason() : "left to adjudication");
            } else if (v instanceof Verdict.Hop) {
                if (n.floor.isPresent() && n.front.equals(n.floor.get())) {
                    // A hop raises the floor over the start it saw, so screening again must settle.
                    out.add(new Step(did + "; " + job + " hops again", n, "admission hopped twice on one floor"));
                    return;
                }
                refusals++;
                n.front = n.front.tick(myId(n));
                n.floor = Optional.of(n.front);
                n.committedAboveFloor = false;
                did.append("; ").append(job).append(" hop, floor raised");
            } else if (v instanceof Verdict.Admit) {
                admits++;
                if (!admit(n, s, h, did, out)) {
                    return;
                }
            } else {
                break;
            }
        }
        out.add(new Step(did.toString(), n, null));
    }

    /** Commits and launches job {@code h} of {@code s} in {@code n}; false if it broke the invariant. */
    private boolean admit(World n, int s, int h, StringBuilder did, List<Step> out) {
        Commit.Input in = new Commit.Input(ME, World.network(n.universe), sessions[s], n.start[s], jobs[s][h],
                jobs[s][h + 1], n.floor.isPresent() && !n.committedAboveFloor);
        String job = NAMES[s] + h;
        for (Crash.Plan p : crashes(n)) {
            World crashed = n.copy();
            store(crashed, b -> Commit.build(b, in, config.recentCapacity()), p.dies());
            out.add(new Step(did + "; commits " + job + ", crash " + p.label(), crashed, null));
        }
        store(n, b -> Commit.build(b, in, config.recentCapacity()), 0);
        int bit = 1 << (s * World.JOBS + h);
        did.append("; commits and launches ").append(job);
        if ((n.ledger & bit) != 0) {
            out.add(new Step(did.toString(), n, "job " + job + " executes twice on X"));
            return false;
        }
        n.ledger |= bit;
        n.running |= bit;
        n.head[s]++;
        n.committedAboveFloor = n.floor.isPresent();
        n.front = n.front.tick(myId(n));
        return true;
    }

    private void endings(World w, List<Step> out) {
        for (int s = 0; s < World.SESSIONS; s++) {
            for (int h = 0; h < World.JOBS; h++) {
                int bit = 1 << (s * World.JOBS + h);
                if ((w.running & bit) == 0) {
                    continue;
                }
                JobId job = jobs[s][h];
                Outcome stopped = Outcome.ended(JobStatus.STOPPED, 0, "");
                Optional<BoundaryRecord> update = Commit.ended(w.locker.newest().orElseThrow(), job, stopped);
                if (update.isPresent()) {
                    for (Crash.Plan p : crashes(w)) {
                        World crashed = w.copy();
                        store(crashed, b -> Commit.ended(b.orElseThrow(), job, stopped).orElseThrow(), p.dies());
                        out.add(new Step("X records " + NAMES[s] + h + " stopped and crashes " + p.label(), crashed,
                                null));
                    }
                }
                World n = w.copy();
                if (update.isPresent()) {
                    store(n, b -> Commit.ended(b.orElseThrow(), job, stopped).orElseThrow(), 0);
                }
                n.running &= ~bit;
                n.front = n.front.tick(myId(n));
                out.add(new Step("X's job " + NAMES[s] + h + " stops", n, null));
            }
        }
    }

    /**
     * Where the next store may crash: inside the re-stamp (the first store of a process; one slot
     * after the other), then inside the store's own writes. One after the other, a crash leaves
     * a prefix of the slots written; in parallel (D-029), any subset short of all of them.
     */
    private List<Crash.Plan> crashes(World w) {
        int slots = w.slots.length;
        int restamp = !w.locker.restamped() && w.locker.load().body().isPresent() ? slots : 0;
        List<Crash.Plan> plans = new ArrayList<>();
        for (int k = 0; k < restamp; k++) {
            plans.add(new Crash.Plan(1L << k, "after " + k + " slot writes of the re-stamp"));
        }
        if (!config.parallelWrites()) {
            for (int k = 0; k < slots; k++) {
                plans.add(new Crash.Plan(1L << (restamp + k), "after " + (restamp + k) + " slot writes"));
            }
            return plans;
        }
        for (long lost = 1; lost < (1L << slots); lost++) {
            StringBuilder written = new StringBuilder();
            for (int i = 0; i < slots; i++) {
                if ((lost & (1L << i)) == 0) {
                    written.append(written.length() == 0 ? "" : ", ").append("m2-").append(i);
                }
            }
            plans.add(new Crash.Plan(lost << restamp, "in the parallel slot writes, "
                    + (written.length() == 0 ? "none written" : "only " + written + " written")));
        }
        return plans;
    }

    /**
     * Runs one store through the real locker over in-memory slots; the process dies inside each
     * slot write whose index (in the order the locker makes them) is set in {@code dies} (0: none).
     * In parallel the other slots' writes still happen: the crash is seen once all are done.
     */
    private void store(World n, Function<Optional<BoundaryRecord>, BoundaryRecord> build, long dies) {
        List<MemorySlot> slots = slots(n);
        int restamp = !n.locker.restamped() && n.locker.load().body().isPresent() ? slots.size() : 0;
        int[] index = {0};
        // Which slot each write went to and whether it died there, in the order they were made.
        List<int[]> made = new ArrayList<>();
        for (int i = 0; i < slots.size(); i++) {
            int slot = i;
            slots.get(i).beforeWrite(() -> {
                boolean die = (dies & (1L << index[0]++)) != 0;
                made.add(new int[] {slot, die ? 1 : 0});
                if (die) {
                    throw new Crash();
                }
            });
        }
        try (Locker<BoundaryRecord> l = Locker.resume(RecordFormat.CAUSAL, ME, List.copyOf(slots), n.locker)) {
            if (config.parallelWrites()) {
                // The writes run in turn on this thread: the same outcomes as threads, in a fixed order.
                l.writeInParallel(Runnable::run);
            }
            try {
                l.store(l.reserve(build));
                n.locker = l.memory();
            } catch (Crash c) {
                crash(n);
                if (made.size() == restamp + slots.size() && laterOnly(made.subList(restamp, made.size()))) {
                    laterSlotOnly++;
                }
            }
        } catch (LockerException e) {
            throw new IllegalStateException("the model's slots never fail: " + e.getMessage(), e);
        }
        for (int i = 0; i < slots.size(); i++) {
            n.slots[i] = slots.get(i).contents().orElse(null);
        }
    }

    /** Whether, among one store's writes, a later slot's write happened and an earlier one's died. */
    private static boolean laterOnly(List<int[]> writes) {
        for (int[] died : writes) {
            for (int[] done : writes) {
                if (died[1] == 1 && done[1] == 0 && done[0] > died[0]) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<MemorySlot> slots(World w) {
        List<MemorySlot> out = new ArrayList<>();
        for (int i = 0; i < w.slots.length; i++) {
            MemorySlot s = new MemorySlot("m2-" + i);
            s.setContents(Optional.ofNullable(w.slots[i]));
            out.add(s);
        }
        return out;
    }

    /** Memory is lost; the slots keep what was durable. */
    private static void crash(World n) {
        n.alive = false;
        n.locker = null;
        n.universe = 0;
        n.side = 0;
        n.front = Version.ZERO;
        n.floor = Optional.empty();
        n.committedAboveFloor = false;
        n.snapshot = Optional.empty();
        n.running = 0;
        java.util.Arrays.fill(n.head, -1);
    }

    /** Slot contents after {@code locker provision}: the genesis record on both slots. */
    byte[][] provisioned() {
        List<MemorySlot> slots = slots(World.initial());
        try {
            Locker.provision(RecordFormat.CAUSAL, List.copyOf(slots), Entropy.seeded(0), BoundaryRecord.genesis(ME));
        } catch (LockerException e) {
            throw new IllegalStateException(e);
        }
        return new byte[][] {slots.get(0).contents().orElseThrow(), slots.get(1).contents().orElseThrow()};
    }

    private int index(int s, JobId j) {
        for (int i = 0; i <= World.JOBS; i++) {
            if (jobs[s][i].equals(j)) {
                return i;
            }
        }
        throw new IllegalStateException("job of another chain in the record");
    }
}
