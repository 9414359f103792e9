package sush.locker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.admission.Admission;
import sush.locker.record.RecordFormat;
import sush.locker.admission.Commit;
import sush.locker.admission.Entry;
import sush.locker.admission.Verdict;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.locker.record.Outcome;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.locker.store.MemorySlot;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * One sled's record-level life for scenario tests: real entry, admission, commit and locker over
 * two in-memory slots, with versions supplied by the test. The ledger holds every job that ran or
 * may have run; running one twice fails the test.
 */
public final class OneSled {
    public final MemorySlot a = new MemorySlot("m2-a");
    public final MemorySlot b = new MemorySlot("m2-b");
    private final int recentCapacity;
    private final Function<Admission.Input, Verdict> admission;
    private Locker<BoundaryRecord> locker;
    private int lives;
    private NetworkId universe;
    private Optional<BoundaryRecord> snapshot = Optional.empty();
    private Optional<Version> floor = Optional.empty();
    private boolean committedAboveFloor;
    private final Map<SessionId, Integer> heads = new HashMap<>();
    private final Set<JobId> ledger = new HashSet<>();
    /** What each offer decided, in order: the scenario's readable trace. */
    public final List<String> log = new ArrayList<>();

    public OneSled(boolean provisioned, int recentCapacity, Function<Admission.Input, Verdict> admission)
            throws LockerException {
        this.recentCapacity = recentCapacity;
        this.admission = admission;
        if (provisioned) {
            Locker.provision(RecordFormat.CAUSAL, List.of(a, b), Entropy.seeded(0), BoundaryRecord.genesis(Fixtures.ME));
        }
    }

    public static OneSled provisioned() throws LockerException {
        return new OneSled(true, BoundaryRecord.MAX_RECENT, Admission::decide);
    }

    public static OneSled unprovisioned() throws LockerException {
        return new OneSled(false, BoundaryRecord.MAX_RECENT, Admission::decide);
    }

    /** A new life entering {@code n}; {@code announcement} is its first send (the floor, if one is raised). */
    public OneSled boot(NetworkId n, Version announcement) throws LockerException {
        locker = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, List.of(a, b), Entropy.seeded(++lives));
        enter(n, announcement);
        return this;
    }

    /** A migration during this life. */
    public OneSled migrate(NetworkId n, Version announcement) {
        enter(n, announcement);
        return this;
    }

    private void enter(NetworkId n, Version announcement) {
        universe = n;
        Entry e = Entry.enter(locker.newest(), n, recentCapacity);
        snapshot = e.snapshot();
        floor = e.floor().map(cause -> announcement);
        committedAboveFloor = false;
        heads.clear();
        log.add("enter " + n + e.floor().map(c -> " floor " + c).orElse(""));
    }

    /** The process dies: memory is gone, slots keep what was durable. */
    public void crash() {
        locker.close();
        a.crash();
        b.crash();
        locker = null;
    }

    /** The sled's drives are wiped (or replaced) while it is down. */
    public void wipe() {
        a.setContents(Optional.empty());
        b.setContents(Optional.empty());
    }

    public boolean ran(SessionId s, int job) {
        return ledger.contains(Fixtures.job(s, job));
    }

    public Optional<BoundaryRecord> record() {
        return locker.newest();
    }

    public Optional<Version> floor() {
        return floor;
    }

    public Locker<BoundaryRecord> locker() {
        return locker;
    }

    /**
     * Job {@code job} of {@code s} (started at {@code vS}) reaches this sled. Returns the verdict;
     * on a hop, the floor is raised to {@code hopFloor} and the job screened again.
     */
    public Verdict offer(SessionId s, Version vS, int job, Version hopFloor) throws LockerException {
        int head = heads.computeIfAbsent(s, k -> resumedHead(s));
        if (job > head) {
            throw new IllegalStateException("job " + job + " is not at the head (" + head + ")");
        }
        Admission.Position p = job == head ? Admission.Position.AT_HEAD : Admission.Position.BEHIND_HEAD;
        Verdict v = decide(s, vS, job, p);
        if (v instanceof Verdict.Hop) {
            log.add(s + "/" + job + " hop");
            floor = Optional.of(hopFloor);
            committedAboveFloor = false;
            v = decide(s, vS, job, p);
        }
        log.add(s + "/" + job + " " + v);
        if (v instanceof Verdict.Admit) {
            Commit.Input in = new Commit.Input(Fixtures.ME, universe, s, vS, Fixtures.job(s, job),
                    Fixtures.job(s, job + 1), floor.isPresent() && !committedAboveFloor);
            locker.store(locker.reserve(newest -> Commit.build(newest, in, recentCapacity)));
            committedAboveFloor = floor.isPresent();
            if (!ledger.add(Fixtures.job(s, job))) {
                throw new AssertionError("job " + job + " of " + s + " ran twice: " + log);
            }
        }
        if (p == Admission.Position.AT_HEAD && !(v instanceof Verdict.Refuse)) {
            heads.put(s, head + 1);
        }
        return v;
    }

    /** The job ended: its outcome is written if the record still names it. */
    public void ended(SessionId s, int job, Outcome outcome) throws LockerException {
        JobId j = Fixtures.job(s, job);
        if (Commit.ended(locker.newest().orElseThrow(), j, outcome).isPresent()) {
            locker.store(locker.reserve(newest -> Commit.ended(newest.orElseThrow(), j, outcome).orElseThrow()));
        }
    }

    private Verdict decide(SessionId s, Version vS, int job, Admission.Position p) {
        return admission.apply(new Admission.Input(locker.trusted(), floor, snapshot, universe, s, vS,
                Fixtures.job(s, job), p));
    }

    /** Section 6: the committed session resumes at its stored successor. */
    private int resumedHead(SessionId s) {
        Optional<Committed> c = snapshot.filter(r -> r.network().equals(universe)).flatMap(BoundaryRecord::committed)
                .filter(k -> k.session().equals(s));
        if (c.isEmpty()) {
            return 0;
        }
        for (int i = 0; i < 64; i++) {
            if (Fixtures.job(s, i).equals(c.get().successor())) {
                return i;
            }
        }
        throw new IllegalStateException("successor off the fixture chain");
    }
}
