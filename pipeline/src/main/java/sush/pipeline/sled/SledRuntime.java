package sush.pipeline.sled;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import sush.gossip.clock.Version;
import sush.gossip.node.Entry;
import sush.gossip.set.Delivery;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.locker.admission.Admission;
import sush.locker.admission.Commit;
import sush.locker.admission.FloorCause;
import sush.locker.admission.HeadRules;
import sush.locker.admission.Verdict;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.locker.record.Outcome;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedCommitted;
import sush.locker.record.SignedRecord;
import sush.locker.admission.SignedAdmission;
import sush.locker.admission.SignedCommit;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.pipeline.exec.Ending;
import sush.pipeline.exec.LaunchRequest;
import sush.pipeline.exec.Launcher;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.JobStatus;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.SledProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;

/**
 * One sled: a single-threaded state machine fed by the causal stream of its current universe.
 * Every method below {@link #start()} runs on {@code loop}, which must be single-threaded; the
 * boundary writer and the launcher report back onto it. Entries follow at-most-once.md section
 * 3, screening section 6, reaping and adjudication section 7.
 */
public final class SledRuntime {
    /** Bound on commits reserved and not yet launched; past it a job is refused, never queued unboundedly. */
    public static final int MAX_PENDING_LAUNCHES = 256;
    /** Bound on the endings of this life's jobs kept to be told again after a migration. */
    public static final int MAX_ENDINGS_KEPT = 4096;
    /** Bound on the event history a late subscriber (an SSE client reconnecting) can still read. */
    public static final int MAX_EVENT_HISTORY = 4096;
    /** Bound on deliveries the ingress stage reads ahead of the state machine. */
    static final int INGRESS_AHEAD = 64;
    /** Bound on deliveries buffered between gossip and the state machine. */
    static final int DELIVERY_PREFETCH = 256;
    /** RackError needs a session; errors about no session name this one. */
    static final SessionId NO_SESSION = new SessionId(new byte[11]);

    private final SledConfig cfg;
    private final Gossip gossip;
    private final Locker<?> locker;
    /** The locker when the rack's ordering is {@code causal}, else null. */
    private final Locker<BoundaryRecord> causal;
    /** The locker when the rack's ordering is {@code signed} (ordered-sessions.md), else null. */
    private final Locker<SignedRecord> signed;
    private final Ordering ordering;
    private final Launcher launcher;
    private final Optional<Journal> journal;
    private final Scheduler loop;
    private final Scheduler ingress;
    private final BoundaryWriter writer;
    /** Wall and monotonic clock at each running job's launch, when the sled keeps times. */
    private final Map<JobId, long[]> startTimes = new HashMap<>();
    private final Sinks.Many<SledEvent> events = Sinks.many().replay().limit(MAX_EVENT_HISTORY);
    private final String me;

    // This entry.
    private long latestEntry;
    private long entrySeq;
    private NetworkId network;
    private Replica replica;
    private SledProjection fold;
    private Optional<BoundaryRecord> snapshot = Optional.empty();
    /** Signed ordering: the record as it stood at this entry (resumption and adjudication). */
    private Optional<SignedRecord> signedSnapshot = Optional.empty();
    /**
     * Signed ordering: the newest grant the previous entry's fold held, and whether it was
     * stopped; re-gossiped into the universe a migration enters (section 2).
     */
    private Optional<sush.projections.job.SignedGrant> carriedGrant = Optional.empty();
    private boolean carriedStopped;
    /** Signed ordering: sessions whose epoch reuse this entry reported (once each). */
    private final Set<SessionId> reuseReported = new HashSet<>();
    private Optional<Version> floor = Optional.empty();
    private boolean committedAboveFloor;
    private Version arrival = Version.ZERO;
    private Version birth = Version.ZERO;
    private long replayUntil;
    private boolean drained;
    private Disposable deliveries;
    private final List<Deferred> deferredReports = new ArrayList<>();

    // This life.
    private final Map<JobId, Launcher.Running> running = new HashMap<>();
    /** A job committed in this life and not ended: its request and who may stop it (ordered-sessions.md section 9). */
    private record Pinned(SignedJob request, SledProjection.Pin pin, Optional<sush.projections.job.SignedGrant> grant) {
    }

    /** Jobs committed in this life and not ended: pinned in every entry's fold, re-gossiped into a new universe. */
    private final Map<JobId, Pinned> pinned = new java.util.LinkedHashMap<>();
    /**
     * The endings of jobs this life launched, the most recent {@link #MAX_ENDINGS_KEPT}: told again
     * in a universe the sled migrates into, where its own statuses are not.
     */
    private final Map<JobId, Message> endingsThisLife = new java.util.LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<JobId, Message> eldest) {
            return size() > MAX_ENDINGS_KEPT;
        }
    };
    /** Jobs of this life whose start (and ending) this entry told again: once each. */
    private final Set<JobId> reannounced = new HashSet<>();
    /** The head rules and their memory of this life's commits and launches (shared with the chain check). */
    private final HeadRules head;
    /** Conflicts this entry reported, by position and refused successor: one report each. */
    private final Set<String> conflictsReported = new HashSet<>();
    /** Jobs this entry reported (or deferred) a skip for: one report per job per entry. */
    private final Set<JobId> skipReported = new HashSet<>();
    /** The gossip set fill threshold this entry reported (0, 80 or 100). */
    private int fillReported;
    /** Requests this entry judged while walking back from a later one behind the head. */
    private final Set<JobId> walkedBack = new HashSet<>();
    /** The chain overflow already reported in this entry (its bounds are explicit, never a silent gap). */
    private long overflowReported;
    /**
     * Set when a stage of the loop threw unexpectedly: no admission from then on (like an
     * untrusted store), and the daemon exits so its supervisor restarts it (the record makes
     * the restart safe).
     */
    private Optional<String> failed = Optional.empty();
    /** A test hook at the start of every stage of the loop: tests throw from it (fail closed). */
    private java.util.function.Consumer<String> probe = stage -> { };
    /** Written on the loop only; volatile so that metrics read it from their own thread. */
    private volatile int pendingLaunches;
    /** Set by a graceful stop: jobs killed now were killed by the shutdown, not an operator. */
    private boolean shuttingDown;
    private Disposable entries;


    /**
     * A skip of a replayed request or a cancellation by a replayed stop: reported after local
     * replay only if the job has no status of this sled's then (an earlier life may have
     * reported it already).
     */
    private record Deferred(JobId job, Message report) {
    }

    public SledRuntime(SledConfig cfg, Gossip gossip, Locker<?> locker, Launcher launcher, Optional<Journal> journal,
            Scheduler loop, Scheduler writer) {
        this(cfg, gossip, locker, launcher, journal, loop, writer, reactor.core.scheduler.Schedulers.immediate());
    }

    /**
     * @param ingress where deliveries are decoded and their jobs' signatures checked before the
     *                state machine folds them, in delivery order; a parallel scheduler keeps
     *                that work off {@code loop} and spreads it over the cores, and the
     *                immediate one does it inline (deterministic: the simulator and tests)
     */
    public SledRuntime(SledConfig cfg, Gossip gossip, Locker<?> locker, Launcher launcher, Optional<Journal> journal,
            Scheduler loop, Scheduler writer, Scheduler ingress) {
        this.ingress = ingress;
        this.cfg = cfg;
        this.gossip = gossip;
        this.locker = locker;
        // The rack's ordering is the locker's record format: one source, so they never disagree.
        this.causal = locker.as(RecordFormat.CAUSAL).orElse(null);
        this.signed = locker.as(RecordFormat.SIGNED).orElse(null);
        this.ordering = signed != null ? Ordering.SIGNED : Ordering.CAUSAL;
        this.launcher = launcher;
        this.journal = journal;
        this.loop = loop;
        this.writer = new BoundaryWriter(locker, writer);
        this.me = cfg.me().baseboard();
        this.head = new HeadRules(cfg.me(), cfg.bounds());
    }

    /** Follows the gossip node's entries from now on. */
    public void start() {
        entries = gossip.entries().publishOn(loop).subscribe(e -> guarded("entry", () -> onEntry(e)),
                err -> guarded("entry", () -> failClosed("entry", err)));
    }

    /**
     * Fault injection for tests: {@code p} runs at the start of every stage of the loop (entry,
     * delivery, commit result, ending, outcome result) and may throw.
     */
    void probe(java.util.function.Consumer<String> p) {
        this.probe = p;
    }

    /** Commits reserved and not yet launched or failed, read from any thread (metrics). */
    public int pendingLaunches() {
        return pendingLaunches;
    }

    /**
     * Why the output disk counts as full now, if it does (below its reserve): jobs reaching the
     * head are refused {@code no-space} until space returns. Read from any thread.
     */
    public Optional<String> shortOfSpace() {
        return cfg.disk().shortage();
    }

    /** The output disk's reserve this sled keeps. */
    public sush.pipeline.disk.DiskReserve disk() {
        return cfg.disk();
    }

    /** Why the sled stopped admitting (an unexpected failure in its loop), if it did. */
    public Optional<String> failure() {
        return failed;
    }

    /**
     * Runs one stage of the loop; anything it throws fails the sled closed instead of killing its
     * stream, {@code Error}s included (issue 35): a full disk under the memory-mapped journal
     * surfaces as an {@code InternalError}, and rethrowing it left a sled that folded nothing more
     * while it said it was ready. Failing closed stops admissions, says why ({@code /ready} 503),
     * and the daemon exits 70 for its supervisor.
     */
    private void guarded(String stage, Runnable r) {
        try {
            probe.accept(stage);
            r.run();
        } catch (RuntimeException | Error e) {
            failClosed(stage, e);
        }
    }

    /**
     * Fail closed, never silently (issue 13): no admission from now on, one error event naming
     * the stage and the exception, and the daemon exits with its own status so that a
     * supervisor restarts it; the boundary record makes the restart safe.
     */
    private void failClosed(String stage, Throwable err) {
        if (failed.isPresent()) {
            return;
        }
        String why = stage + ": " + err;
        if (!(err instanceof VirtualMachineError) || err instanceof StackOverflowError) {
            // Recorded while the journal still takes records. Not after a fault of the JVM (an
            // InternalError, out of memory): it may be the journal's own (a full disk under its
            // mapping), and writing to it again can crash the JVM instead of letting the daemon
            // exit 70 (issue 35).
            try {
                journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", "fail closed: " + why));
            } catch (RuntimeException e) {
                emit(new SledEvent.Failed("the journal could not record the failure: " + e));
            }
        }
        failed = Optional.of(why);
        emit(new SledEvent.Failed("the sled stopped admitting jobs after an unexpected failure in " + why));
        emit(new SledEvent.Halted(stage, String.valueOf(err)));
    }

    /**
     * The boundary slots were changed by something other than this sled's locker (issue 22):
     * the locker already distrusts them for this life, so nothing more is admitted; this says
     * so at once, in the journal and as an error event.
     */
    public void slotsChanged(String finding) {
        loop.schedule(() -> {
            String why = finding + "; the boundary store is untrusted for the rest of this life and every later job "
                    + "targeting this sled is refused";
            journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", why));
            emit(new SledEvent.Failed(why));
        });
    }

    /**
     * Graceful shutdown: running jobs are stopped (their endings are still reported while the
     * gossip node lives). Runs on the loop.
     */
    public void stop() {
        loop.schedule(() -> {
            shuttingDown = true;
            List.copyOf(running.values()).forEach(Launcher.Running::stop);
        });
    }

    /** Stores acknowledged by a newer store of the same batch instead of their own (D-036), this life. */
    public long coalescedStores() {
        return writer.coalesced();
    }

    /** Stores handed to the writer and not yet taken by it. */
    public int storesWaiting() {
        return writer.waiting();
    }

    /** Stops following gossip at once (the end of a life; a crash in the simulator). */
    public void halt() {
        loop.schedule(() -> {
            if (entries != null) {
                entries.dispose();
            }
            if (deliveries != null) {
                deliveries.dispose();
            }
            writer.dispose();
        });
    }

    /** Everything the sled does, in order; a late subscriber first gets the recent history. */
    public Flux<SledEvent> events() {
        return events.asFlux();
    }

    /** The fold of the current entry, read on the loop (tests, the API's queries). */
    public reactor.core.publisher.Mono<View> view() {
        return reactor.core.publisher.Mono.fromCallable(this::currentView).subscribeOn(loop);
    }

    /** Runs {@code f} on the loop, where the fold may be read; for the API's queries. */
    public <T> reactor.core.publisher.Mono<T> query(java.util.function.Function<View, T> f) {
        return reactor.core.publisher.Mono.fromCallable(() -> f.apply(currentView())).subscribeOn(loop);
    }

    private View currentView() {
        return new View(network, fold, ordering, locker.newest().map(r -> (Object) r), floor, locker.trusted(),
                Set.copyOf(running.keySet()), pendingLaunches);
    }

    /**
     * A consistent look at the sled from its own thread; {@code pendingLaunches} counts commits
     * reserved and not yet launched or failed (bounded by {@link #MAX_PENDING_LAUNCHES});
     * {@code record} is the newest boundary record, a {@link BoundaryRecord} or a
     * {@link SignedRecord} as {@code ordering} says.
     */
    public record View(NetworkId network, SledProjection fold, Ordering ordering, Optional<Object> record,
            Optional<Version> floor, boolean trusted, Set<JobId> running, int pendingLaunches) {
    }

    // ---- Entries (section 3) -------------------------------------------------------------

    private void onEntry(Entry e) {
        latestEntry = e.sequence();
        if (deliveries != null) {
            deliveries.dispose();
            deliveries = null;
        }
        if (fold != null && ordering == Ordering.SIGNED && fold.newestGrant().isPresent()) {
            carriedGrant = fold.newestGrant();
            carriedStopped = fold.activeGrant().isEmpty();
        }
        fold = null;
        // Step 1: nothing of the new entry happens before every queued boundary write is done.
        writer.drain().publishOn(loop).subscribe(null, err -> guarded("entry", () -> failClosed("entry", err)),
                () -> guarded("entry", () -> enter(e)));
    }

    private void enter(Entry e) {
        if (e.sequence() != latestEntry) {
            return; // a newer entry arrived while the writer drained
        }
        entrySeq = e.sequence();
        network = e.network();
        replica = e.replica();
        // Signed ordering: no universe bookkeeping, so no entry plan and no floor (ordered-sessions.md 3).
        sush.locker.admission.Entry plan = causal != null && causal.trusted()
                ? sush.locker.admission.Entry.enter(causal.newest(), network)
                : new sush.locker.admission.Entry(Optional.empty(), Optional.empty());
        signedSnapshot = signed != null && signed.trusted() ? signed.newest() : Optional.empty();
        snapshot = plan.snapshot();
        arrival = replica.frontier();
        replayUntil = replica.size();
        send(new Message.Announcement(me, cfg.software(), cfg.me().cubby(), cfg.api().orElse(null)));
        floor = Optional.empty();
        committedAboveFloor = false;
        plan.floor().ifPresent(this::raiseEntryFloor);
        birth = replica.frontier();
        fold = new SledProjection(cfg.me(), cfg.trust(), ordering, cfg.bounds());
        head.enter(fold);
        pinned.forEach((job, p) -> fold.pin(job, p.pin()));
        reuseReported.clear();
        deferredReports.clear();
        walkedBack.clear();
        fillReported = 0;
        skipReported.clear();
        conflictsReported.clear();
        reannounced.clear();
        overflowReported = 0;
        evictionsReported.clear();
        evictionsTotalReported = 0;
        resume();
        if (signed != null) {
            enterSigned(e);
        }
        journal(new JournalRecord.Entered(e.sequence(), network, e.cause().name()));
        emit(new SledEvent.Entered(e.sequence(), network, e.cause().name(), plan.floor()));
        drained = replayUntil == 0;
        if (drained) {
            onDrained();
        }
        long seq = entrySeq;
        deliveries = replica.deliveries(0)
                .flatMapSequential(d -> reactor.core.publisher.Mono.fromCallable(() -> read(d)).subscribeOn(ingress),
                        INGRESS_AHEAD, 1)
                .publishOn(loop, DELIVERY_PREFETCH).subscribe(r -> guarded("delivery", () -> onDelivery(seq, r)),
                        err -> guarded("delivery", () -> failClosed("delivery", err)));
    }

    private void raiseEntryFloor(FloorCause cause) {
        if (cause == FloorCause.UNIVERSE_FLIP_FLOP) {
            send(new Message.RackError(me, Message.RackErrorKind.UNIVERSE_FLIP_FLOP, NO_SESSION,
                    "back in universe " + network + ", which this sled left long ago"));
        }
        // Cause 2 has no error event; the floor still covers this entry's announcement.
        raiseFloor(cause);
    }

    private void raiseFloor(FloorCause cause) {
        floor = Optional.of(replica.frontier());
        committedAboveFloor = false;
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "", cause.name()));
        emit(new SledEvent.FloorRaised(cause, floor.get()));
    }

    /**
     * Signed ordering at entry: an unprovisioned sled says so once per entry (it runs nothing,
     * rule 2, and never writes a record by itself); after a migration the newest grant the sled
     * held, and its stop, are gossiped into the new universe (safe: a signed grant has one place
     * in the order wherever it travels), so a session survives a universe contest.
     */
    private void enterSigned(Entry e) {
        if (signed.trusted() && signedSnapshot.isEmpty()) {
            journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", "Unprovisioned"));
            send(new Message.RackError(me, Message.RackErrorKind.UNPROVISIONED, NO_SESSION, "the boundary slots of "
                    + me + " hold no record: it runs no job until `sush locker provision --floor-epoch E` (E from "
                    + "`sush signer epoch`)"));
        }
        if (e.cause() == Entry.Cause.MIGRATION && carriedGrant.isPresent()) {
            sush.projections.job.SignedGrant g = carriedGrant.get();
            send(new Message.SessionGrant(g));
            if (carriedStopped) {
                send(new Message.SessionStop(g.grant().session(), g.grant().starter()));
            }
        }
        if (e.cause() == Entry.Cause.MIGRATION) {
            // A job committed here and not ended keeps its starter in the new universe: its
            // session's grant (safe to re-gossip anywhere) and its request travel with it, so
            // that any sled there takes its starter's stop.
            for (Pinned p : pinned.values()) {
                p.grant().filter(g -> carriedGrant.map(c -> !c.grant().session().equals(g.grant().session()))
                        .orElse(true)).ifPresent(g -> send(new Message.SessionGrant(g)));
                send(new Message.JobStart(p.request()));
            }
        }
    }

    /**
     * Section 6 (amended): the committed session of the snapshot or of any {@code recent} entry,
     * whatever the current universe, resumes at its stored successor before anything is
     * screened. A session id exists once, so seeing it anywhere means resuming it; where several
     * entries name it, the most recent wins (the record's own, else the most recently left).
     */
    private void resume() {
        signedSnapshot.flatMap(SignedRecord::committed).ifPresent(c -> {
            // Signed ordering: the committed session resumes at its successor (section 5).
            fold.resume(new SledProjection.Resumption(c.session().session(), c.job(), c.successor()));
            journal(new JournalRecord.Resumed(c.session().session(), c.job(), c.successor()));
        });
        if (snapshot.isEmpty()) {
            return;
        }
        List<Committed> named = new ArrayList<>();
        snapshot.get().committed().ifPresent(named::add);
        List<sush.locker.record.Left> recent = snapshot.get().recent();
        for (int i = recent.size() - 1; i >= 0; i--) {
            recent.get(i).committed().ifPresent(named::add);
        }
        Set<SessionId> seen = new HashSet<>();
        for (Committed c : named) {
            if (seen.add(c.session())) {
                fold.resume(new SledProjection.Resumption(c.session(), c.job(), c.successor()));
                journal(new JournalRecord.Resumed(c.session(), c.job(), c.successor()));
            }
        }
    }

    // ---- The causal stream ----------------------------------------------------------------

    /** A delivery as the ingress stage read it: decoded once, its job's signature checked. */
    private record Read(Delivery delivery, Optional<Message> message) {
    }

    /**
     * The ingress stage, off the state machine: decodes a delivery and checks a job's signature
     * into the trust store's memory, so the fold finds the verdict instead of computing it. It
     * decides nothing (the fold checks again, from memory or afresh) and never fails the stream.
     */
    private Read read(Delivery d) {
        Optional<Message> m = decode(d);
        if (m.isPresent() && m.get() instanceof Message.JobStart) {
            try {
                cfg.trust().signatureValid(((Message.JobStart) m.get()).job());
            } catch (RuntimeException e) {
                // The fold meets the same job and counts what it does there.
            }
        }
        return new Read(d, m);
    }

    private void onDelivery(long seq, Read read) {
        if (seq != entrySeq || fold == null) {
            return;
        }
        Delivery d = read.delivery();
        Optional<Message> m = read.message();
        if (journal.isPresent()) {
            journal(new JournalRecord.Delivered(d.version(), d.payload(), signatureVerdict(m)));
        }
        Optional<SignedJob> request = m.flatMap(this::peek);
        request.ifPresent(j -> emit(new SledEvent.Requested(j.request().job())));
        Optional<Report> before = m.flatMap(this::reportOf);
        // Each message is decoded once: the fold takes what peek already read.
        handle(m.isPresent() ? fold.apply(d.version(), m.get()) : fold.apply(d.version(), d.payload()));
        m.flatMap(this::reportOf).filter(after -> before.isEmpty() || !before.get().equals(after))
                .ifPresent(r -> emit(new SledEvent.StatusChanged(r.job(), r.baseboard(), r.entry().status(),
                        r.entry().message())));
        request.ifPresent(this::behindHead);
        request.ifPresent(this::checkTarget);
        request.ifPresent(j -> reannounce(j.request().job()));
        request.flatMap(j -> head.stopFor(j.request().job())).ifPresent(this::onStop);
        m.filter(x -> x instanceof Message.JobStop).ifPresent(x -> onStop((Message.JobStop) x));
        m.filter(x -> x instanceof Message.JobSkip).map(x -> (Message.JobSkip) x)
                .ifPresent(b -> walkBack(b.session(), b.position()));
        if (!drained && d.checkpoint() >= replayUntil) {
            drained = true;
            onDrained();
        }
        retryWaiting();
        reportOverflow();
        reportEvictions();
        checkFill();
    }

    /** The share of its capacity at which a gossip set's fill is first reported (then at 100). */
    static final int FILL_WARNING_PERCENT = 80;

    /** The fill threshold {@code held} messages of {@code capacity} have reached: 0, 80 or 100. */
    static int fillThreshold(int held, int capacity) {
        if (held >= capacity) {
            return 100;
        }
        return (long) held * 100 >= (long) capacity * FILL_WARNING_PERCENT ? FILL_WARNING_PERCENT : 0;
    }

    /** Reports the current universe's gossip set crossing 80% and 100% of its capacity, once each per entry. */
    private void checkFill() {
        int held = replica.size();
        int reached = fillThreshold(held, sush.gossip.set.Replica.MAX_MESSAGES);
        if (reached > fillReported) {
            fillReported = reached;
            emit(new SledEvent.SetFill(reached, held, sush.gossip.set.Replica.MAX_MESSAGES));
        }
    }

    /** The chain's bounds are explicit: what it could not remember is an error event, never a silent gap. */
    private void reportOverflow() {
        long overflow = fold.chain().map(ChainProjection::overflow).orElse(0L);
        if (overflow > overflowReported) {
            overflowReported = overflow;
            emit(new SledEvent.Failed("the active session's chain is past its bound of " + ChainProjection.MAX_POSITIONS
                    + " positions: " + overflow + " jobs, burns or walked positions not remembered (later jobs wait"
                    + " behind a hole; burns behind the head are ignored); start a new session"));
        }
    }

    /** What this entry's fold forgot, by memory, as last reported. */
    private final Map<String, Long> evictionsReported = new HashMap<>();
    private long evictionsTotalReported;

    /** Each bounded memory of the fold that forgot something says so (an event, for metrics and logs). */
    private void reportEvictions() {
        long total = fold.evictionsTotal() + head.evictedStops();
        if (total == evictionsTotalReported) {
            return;
        }
        evictionsTotalReported = total;
        Map<String, Long> now = new java.util.TreeMap<>(fold.evictions());
        now.put("job-stops", head.evictedStops());
        now.forEach((memory, count) -> {
            if (count > evictionsReported.getOrDefault(memory, 0L)) {
                evictionsReported.put(memory, count);
                emit(new SledEvent.Evicted(memory, count));
            }
        });
    }

    /** For a job request, the verdict the fold acts on (the ingress stage checked it already). */
    private JournalRecord.Signature signatureVerdict(Optional<Message> m) {
        if (m.isEmpty() || !(m.get() instanceof Message.JobStart)) {
            return JournalRecord.Signature.UNCHECKED;
        }
        try {
            return cfg.trust().signature(((Message.JobStart) m.get()).job())
                    .map(reason -> reason == sush.projections.job.InvalidJobReason.UNKNOWN_KEY
                            ? JournalRecord.Signature.UNKNOWN_KEY : JournalRecord.Signature.BAD_SIGNATURE)
                    .orElse(JournalRecord.Signature.GOOD);
        } catch (RuntimeException e) {
            // A check that fails outright is the fold's to count; the journal records no verdict.
            return JournalRecord.Signature.UNCHECKED;
        }
    }

    private static Optional<Message> decode(Delivery d) {
        try {
            return Optional.of(MessageCodec.decode(d.payload()));
        } catch (MessageException e) {
            return Optional.empty(); // the fold counts it
        }
    }

    /** A reporter's status of a job, as the fold holds it. */
    private record Report(JobId job, String baseboard, StatusProjection.Entry entry) {
    }

    /** The fold's status for the job and reporter a job event is about. */
    private Optional<Report> reportOf(Message m) {
        JobId job;
        String board;
        if (m instanceof Message.JobStarted) {
            job = ((Message.JobStarted) m).job();
            board = ((Message.JobStarted) m).baseboard();
        } else if (m instanceof Message.JobStopped) {
            job = ((Message.JobStopped) m).job();
            board = ((Message.JobStopped) m).baseboard();
        } else if (m instanceof Message.JobErrored) {
            job = ((Message.JobErrored) m).job();
            board = ((Message.JobErrored) m).baseboard();
        } else if (m instanceof Message.JobSkipped) {
            job = ((Message.JobSkipped) m).job();
            board = ((Message.JobSkipped) m).baseboard();
        } else if (m instanceof Message.JobCancelled) {
            job = ((Message.JobCancelled) m).job();
            board = ((Message.JobCancelled) m).baseboard();
        } else {
            return Optional.empty();
        }
        return fold.statuses().status(job, board).map(e -> new Report(job, board, e));
    }

    /** What the sled itself needs from a message beyond the fold: requests, stops, operator keys. */
    private Optional<SignedJob> peek(Message m) {
        if (m instanceof Message.JobStart) {
            return Optional.of(((Message.JobStart) m).job());
        } else if (m instanceof Message.OperatorLogin || m instanceof Message.OperatorRevoked
                || m instanceof Message.OperatorUnrevoked) {
            emit(new SledEvent.Operator(m));
        }
        return Optional.empty();
    }

    /**
     * Section 2: a starter's stop. A running job is killed; a targeted job of the active session
     * that this sled has not started gets {@code Cancelled} here and, at the head, is passed
     * without running, so later jobs still run. A replayed stop's {@code Cancelled} is reported
     * after replay, and only if the job still has no status of this sled's then: an earlier life
     * already reported it.
     */
    private void onStop(Message.JobStop stop) {
        JobId id = stop.job();
        HeadRules.OnStop what = head.onStop(stop, this::admits);
        switch (what) {
            case KILL -> running.get(id).stop();
            case KEPT_FOR_LAUNCH -> {
                // Committed, its record in flight: the stop is applied at the launch (never spawned).
                journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(),
                        "stop kept until the commit lands: it will not be launched"));
                emit(new SledEvent.StopKept(id));
            }
            case CANCEL -> {
                reportCancelled(id);
                if (head.atHead(id)) {
                    pass(id, ChainProjection.Passed.NEVER_RAN);
                }
            }
            case BEHIND_HEAD -> fold.chain().flatMap(c -> c.known(id)).ifPresent(this::behindHeadOne);
            case KEPT -> journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(),
                    "stop kept until the job's request, or its place in the chain, is known"));
            case NONE -> { }
        }
    }

    /** Cancelled (never ran here): a replayed stop's report waits for replay, and goes only if the job has no status of ours then. */
    private void reportCancelled(JobId id) {
        if (drained) {
            send(new Message.JobCancelled(me, id));
        } else {
            deferredReports.add(new Deferred(id, new Message.JobCancelled(me, id)));
        }
    }

    /**
     * Whether admission would run {@code job} at the head now: only then is a job at or ahead of
     * the head provably never started here (ordered-sessions.md section 9). Pure: a verdict that
     * would raise a floor (a hop) is no admission.
     */
    private boolean admits(SignedJob job) {
        if (failed.isPresent() || (signed != null && fold.activeGrant().isEmpty())) {
            return false;
        }
        return fold.activeSession().filter(s -> s.id().equals(job.request().session()))
                .map(s -> decide(s, job.request().job(), Admission.Position.AT_HEAD) instanceof Verdict.Admit)
                .orElse(false);
    }

    /**
     * Section 6: a targeted request of the active session that arrives behind the head (a
     * re-sent job, or one the head passed by a burn) ran or may have run here; it is reported
     * {@code AlreadyHandled} instead of hanging queued. The snapshot's committed job is left to
     * adjudication.
     */
    private void behindHead(SignedJob job) {
        behindHeadOne(job);
        // This request may close a gap: earlier requests that did not lead to the head when they
        // arrived (a resumed head, requests re-sent after a cold boot) do now. Each is judged
        // once per entry, so the walk costs one step per request.
        walkBack(job.request().session(), job.request().job());
    }

    /**
     * Judges, as requests behind the head, the known requests before {@code position} when it
     * precedes the head of active session {@code session}: a request or a burn that arrives
     * late may link earlier requests to the head.
     */
    private void walkBack(SessionId session, JobId position) {
        Optional<ChainProjection> chain = fold.chain();
        if (chain.isPresent() && fold.activeSession().map(s -> s.id().equals(session)).orElse(false)
                && chain.get().precedesHead(position)) {
            // Every position back from it, burnt ones included: a burn that arrives late also links
            // the request at the burnt position (a resumed head never stood there, so no burn
            // passed it over): it ran or may have run here. Each position is walked once per entry.
            Optional<JobId> at = Optional.of(position);
            while (at.isPresent() && walkedBack.add(at.get())) {
                chain.get().known(at.get()).ifPresent(this::behindHeadOne);
                at = chain.get().previous(at.get());
            }
        }
    }

    private void behindHeadOne(SignedJob job) {
        JobId id = job.request().job();
        if (!head.behindHead(job)) {
            // This life's own commits report their real statuses (they may still be in flight).
            return;
        }
        Verdict v = decide(fold.activeSession().orElseThrow(), id, Admission.Position.BEHIND_HEAD);
        if (v instanceof Verdict.Skip) {
            skip(id, ((Verdict.Skip) v).reason());
        } else if (v instanceof Verdict.Refuse && skipReported.add(id)) {
            // An untrusted store (rule 1): the job ends with the store's error here instead of
            // hanging without a status (it is behind the head, so no session end reports it).
            send(new Message.JobErrored(me, id, Message.JobError.IO, ((Verdict.Refuse) v).why(), 0));
        }
    }

    private void handle(List<SledProjection.Outcome> outcomes) {
        for (SledProjection.Outcome o : outcomes) {
            if (o instanceof SledProjection.Outcome.AtHead) {
                atHead(((SledProjection.Outcome.AtHead) o).job());
            } else if (o instanceof SledProjection.Outcome.SessionEnded) {
                SledProjection.Outcome.SessionEnded e = (SledProjection.Outcome.SessionEnded) o;
                head.unwaitSession(e.session());
                e.queued().forEach(j -> skip(j.request().job(), Message.SkipReason.SESSION_ENDED));
            } else if (o instanceof SledProjection.Outcome.Burnt) {
                JobId id = ((SledProjection.Outcome.Burnt) o).job().request().job();
                head.unwait(id);
                if (!head.committedThisLife(id)) {
                    skip(id, Message.SkipReason.ALREADY_HANDLED); // section 6: it precedes the head now
                }
            } else if (o instanceof SledProjection.Outcome.ConcurrentSessions) {
                concurrent((SledProjection.Outcome.ConcurrentSessions) o);
            } else if (o instanceof SledProjection.Outcome.Released) {
                // Held until its session became active: behind a resumed head it ran or may have run.
                behindHead(((SledProjection.Outcome.Released) o).job());
            } else if (o instanceof SledProjection.Outcome.Conflict) {
                conflict((SledProjection.Outcome.Conflict) o);
            } else if (o instanceof SledProjection.Outcome.ChainFull) {
                SignedJob j = ((SledProjection.Outcome.ChainFull) o).job();
                if (targetsMe(j) && ownStatus(j.request().job()).isEmpty() && skipReported.add(j.request().job())) {
                    send(new Message.JobErrored(me, j.request().job(), Message.JobError.INVALID_JOB, "the session's "
                            + "chain is full (" + cfg.bounds().chainPositions() + " positions): this job is not "
                            + "remembered and never runs here; start a new session", 0));
                }
            } else if (o instanceof SledProjection.Outcome.InvalidJob) {
                SledProjection.Outcome.InvalidJob i = (SledProjection.Outcome.InvalidJob) o;
                if (targetsMe(i.job()) && ownStatus(i.job().request().job()).isEmpty()) {
                    send(new Message.JobErrored(me, i.job().request().job(), Message.JobError.INVALID_JOB,
                            i.reason().name().toLowerCase(java.util.Locale.ROOT), 0));
                }
            }
        }
    }

    /**
     * Ordered-sessions.md section 9: a request at a position this sled holds, committed or ran
     * another request at is a different job at a used position: {@code Skipped{Conflict}} naming
     * both (by their successors), once per entry, never the other request's ending.
     */
    private void conflict(SledProjection.Outcome.Conflict c) {
        JobId id = c.refused().request().job();
        if (!targetsMe(c.refused()) || !conflictsReported.add(id + "/" + c.refused().request().successor())) {
            return;
        }
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(), "Conflict: this sled "
                + "holds the request with successor " + c.held().codephrase() + " here; the one with successor "
                + c.refused().request().successor().codephrase() + " is another job and never runs here"));
        send(new Message.JobConflict(me, id, c.held(), c.refused().request().successor()));
    }

    /**
     * A request of the active session whose target no sled can parse: every sled says so
     * ({@code InvalidJob}) instead of passing it in silence (the API and the client refuse such
     * targets before anything is signed or gossiped; this is what a hand-made request meets).
     */
    private void checkTarget(SignedJob job) {
        JobId id = job.request().job();
        // Only a request that passed its checks and took a position: a forged one is never
        // reported rack-wide (no sled amplifies what an attacker sends).
        if (!fold.chain().flatMap(c -> c.known(id)).map(k -> k == job || java.util.Arrays.equals(
                k.request().digest(), job.request().digest())).orElse(false)) {
            return;
        }
        try {
            sush.projections.targets.Target.parse(job.request().target());
        } catch (sush.projections.targets.TargetException e) {
            if (ownStatus(id).isEmpty() && skipReported.add(id)) {
                send(new Message.JobErrored(me, id, Message.JobError.INVALID_JOB, "target: " + e.getMessage(), 0));
            }
        }
    }

    /** Two concurrent sessions: one error for the rack, from the acceptor that sorts first. */
    private void concurrent(SledProjection.Outcome.ConcurrentSessions c) {
        String reporter = c.first().acceptor().compareTo(c.second().acceptor()) <= 0 ? c.first().acceptor()
                : c.second().acceptor();
        if (reporter.equals(me) && (arrival.lessThan(c.first().start()) || arrival.lessThan(c.second().start()))) {
            send(new Message.RackError(me, Message.RackErrorKind.CONCURRENT_SESSIONS, c.second().id(),
                    "sessions " + c.first().id().codephrase() + " and " + c.second().id().codephrase()
                            + " started concurrently; both ended"));
        }
    }

    // ---- The head (section 6) -------------------------------------------------------------

    private void atHead(SignedJob job) {
        JobId id = job.request().job();
        switch (head.atHead(job)) {
            case CANCELLED -> pass(id, ChainProjection.Passed.NEVER_RAN); // stopped before it started
            case ALREADY_HANDLED -> {
                // Defence in depth (section 2): this sled has its own status for the job, or
                // committed it in this life: it ran or may have run here. Never admitted.
                journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(),
                        "AlreadyHandled: own status " + ownStatus(id).map(e -> e.status().name())
                                .orElse("(this life's commit)")));
                skip(id, Message.SkipReason.ALREADY_HANDLED);
                pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            }
            case WAIT -> { } // sequential: it waits until the previous job this sled ran has ended here
            case SCREEN -> screen(job);
        }
    }

    private void retryWaiting() {
        if (fold != null) {
            head.retry().ifPresent(this::atHead);
        }
    }

    private void screen(SignedJob job) {
        JobId id = job.request().job();
        if (!head.atHead(id)) {
            return; // the head moved (a burn) since the job was offered
        }
        Optional<SessionProjection.Session> active = fold.activeSession()
                .filter(s -> s.id().equals(job.request().session()));
        if (active.isEmpty()) {
            return; // the session ended meanwhile; SessionEnded reports it
        }
        java.util.List<String> above = job.request().limits().above(cfg.limits().maxima());
        java.util.List<String> refusals = new java.util.ArrayList<>();
        if (!above.isEmpty()) {
            refusals.add("limit above this sled's maximum: " + String.join("; ", above));
        }
        if (job.request().mode() != sush.projections.job.JobMode.RECORDED && !namesOneSled(job.request().target())) {
            // D-034: a terminal or a stream belongs to one sled; the API refuses it too.
            refusals.add(job.request().mode().wire() + " jobs target exactly one sled, not " + job.request().target());
        }
        if (!refusals.isEmpty()) {
            // D-031, D-034: a job this sled does not allow never runs here; later jobs still do.
            String why = String.join("; ", refusals);
            journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(), why));
            if (ownStatus(id).isEmpty() && skipReported.add(id)) {
                send(new Message.JobErrored(me, id, Message.JobError.INVALID_JOB, why, 0));
            }
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            return;
        }
        // After an unexpected failure the sled admits nothing, as with an untrusted store (rule 1).
        Verdict v = failed.isPresent() ? new Verdict.Refuse("the sled stopped admitting jobs after an unexpected "
                + "failure (" + failed.get() + "); its daemon restarts")
                : decide(active.get(), id, Admission.Position.AT_HEAD);
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(), v.toString()));
        emit(new SledEvent.Screened(id, v));
        if (v instanceof Verdict.Hop) {
            send(new Message.RackError(me, Message.RackErrorKind.SESSION_HOP, active.get().id(),
                    "this sled executed a session concurrent with this one"));
            raiseFloor(FloorCause.SESSION_HOP);
            screen(job); // rule 2 now refuses it
        } else if (v instanceof Verdict.Admit) {
            if (head.admitted(id) == HeadRules.Admitted.CANCEL) {
                // Its starter stopped it before it started; it stands at the head, after
                // everything this sled started: it never ran here, and never will.
                reportCancelled(id);
                pass(id, ChainProjection.Passed.NEVER_RAN);
            } else {
                commit(job, active.get());
            }
        } else if (v instanceof Verdict.EpochReuse) {
            // Rule 7: the signer broke its promise. Refused, and the operator is told once per session.
            String why = ((Verdict.EpochReuse) v).why();
            if (reuseReported.add(active.get().id())) {
                send(new Message.RackError(me, Message.RackErrorKind.EPOCH_REUSE, active.get().id(), why));
            }
            if (ownStatus(id).isEmpty() && skipReported.add(id)) {
                send(new Message.JobErrored(me, id, Message.JobError.INVALID_JOB, "epoch reuse: " + why, 0));
            }
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
        } else {
            if (v instanceof Verdict.Skip) {
                skip(id, ((Verdict.Skip) v).reason());
            } else if (v instanceof Verdict.Refuse && ownStatus(id).isEmpty()) {
                send(new Message.JobErrored(me, id, Message.JobError.IO, ((Verdict.Refuse) v).why(), 0));
            }
            // Refused: it may have run in an earlier life (that is why rules 2 and 7 refuse), so
            // no later burn may move the head back over it.
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
        }
    }

    /** The admission rules of the rack's ordering (at-most-once.md 5, or ordered-sessions.md 5). */
    private Verdict decide(SessionProjection.Session active, JobId id, Admission.Position position) {
        if (signed != null) {
            // The newest record handed to the writer, not the entry's: a commit of this entry
            // counts at once (rule 7 sees a reused epoch granted after it).
            sush.projections.id.SessionRank rank = fold.activeGrant().orElseThrow().grant().rank();
            return SignedAdmission.decide(new SignedAdmission.Input(signed.trusted(), signed.newest(), rank, id,
                    position));
        }
        return Admission.decide(new Admission.Input(causal.trusted(), floor, snapshot, network, active.id(),
                active.start(), id, position));
    }

    private void pass(JobId job, ChainProjection.Passed how) {
        head.passed(job);
        journal(new JournalRecord.Passed(job, how));
        handle(fold.passHead(job, how));
    }

    private void commit(SignedJob job, SessionProjection.Session session) {
        JobId id = job.request().job();
        if (head.committedThisLife(id)) {
            // The at-most-once invariant (issue 37): admission never commits a job twice in a
            // life. Should it, the loop fails closed before a second record is even reserved.
            throw new IllegalStateException("job " + id + " reached its commit a second time in this life: the "
                    + "at-most-once invariant is broken");
        }
        if (pendingLaunches >= MAX_PENDING_LAUNCHES) {
            send(new Message.JobErrored(me, id, Message.JobError.IO, "launch queue full (" + MAX_PENDING_LAUNCHES
                    + " commits in flight)", 0));
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            return;
        }
        Optional<String> shortOfSpace = cfg.disk().shortage();
        if (shortOfSpace.isPresent()) {
            // A full output disk is a state, not a fault (issue 35): the job is refused with the
            // reason, before anything is committed, and the sled serves again once space returns.
            send(new Message.JobErrored(me, id, Message.JobError.NO_SPACE, shortOfSpace.get(), 0));
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            return;
        }
        Locker.Ticket<?> t;
        try {
            if (signed != null) {
                SignedCommit.Input in = new SignedCommit.Input(fold.activeGrant().orElseThrow().grant().rank(), id,
                        job.request().successor());
                t = signed.reserve(newest -> SignedCommit.build(newest, in));
            } else {
                Commit.Input in = new Commit.Input(me, network, session.id(), session.start(), id,
                        job.request().successor(), floor.isPresent() && !committedAboveFloor);
                t = causal.reserve(newest -> Commit.build(newest, in));
            }
        } catch (LockerException | RuntimeException e) {
            send(new Message.JobErrored(me, id, Message.JobError.IO, "recording the execution boundary: "
                    + e.getMessage(), 0));
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            return;
        }
        committedAboveFloor = floor.isPresent();
        head.committed(id);
        // Who may stop it, kept whatever the fold's bounded memories forget, and into a new universe.
        SledProjection.Pin pin = new SledProjection.Pin(session.id(), session.starter());
        pinned.put(id, new Pinned(job, pin, fold.grant(session.id())));
        fold.pin(id, pin);
        emit(new SledEvent.Reserved(id));
        pendingLaunches++;
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.COMMIT, id.codephrase(), "reserved"));
        // Records reach the writer in the order they were reserved: this store is submitted
        // before passing the head can reserve the next job's (a concurrent one commits at once).
        long seq = t.seq();
        writer.store(t).publishOn(loop).subscribe(micros -> guarded("commit result", () -> {
            emit(new SledEvent.Committed(id, seq, micros));
            launch(job);
        }), err -> guarded("commit result", () -> commitFailed(id, err)));
        // The newest record names this job now: the head is past it, as resumption would put it.
        pass(id, ChainProjection.Passed.RAN);
    }

    private static boolean namesOneSled(String target) {
        try {
            return sush.projections.targets.Target.parse(target).namesOneSled();
        } catch (sush.projections.targets.TargetException e) {
            return false;
        }
    }

    private void commitFailed(JobId job, Throwable err) {
        pendingLaunches--;
        head.commitFailed(job);
        unpin(job);
        String why = "recording the execution boundary failed: " + err.getMessage();
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, job.codephrase(), why));
        emit(new SledEvent.Failed(why));
        // The job does not start: a failed write means no launch.
        Message report = new Message.JobErrored(me, job, Message.JobError.IO, why, 0);
        endingsThisLife.put(job, report);
        send(report);
    }

    private void launch(SignedJob job) {
        pendingLaunches--;
        JobId id = job.request().job();
        if (!head.launch(id)) {
            cancelledAtLaunch(id);
            return;
        }
        Launcher.Running r = launcher.launch(new LaunchRequest(job.request().session(), id, job.request().command(),
                job.request().target(), cfg.limits().forJob(job.request().limits()), job.request().mode()));
        running.put(id, r);
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.LAUNCH, id.codephrase(), ""));
        emit(new SledEvent.Launched(id));
        Long startedAt = null;
        if (cfg.clock().isPresent()) {
            SledClock c = cfg.clock().get();
            startedAt = c.wallMillis();
            startTimes.put(id, new long[] {startedAt, c.monotonicNanos()});
        }
        send(new Message.JobStarted(me, id, startedAt));
        r.ending().publishOn(loop).subscribe(e -> guarded("ending", () -> onEnded(id, e)),
                err -> guarded("ending", () -> failClosed("ending", err)));
    }

    /**
     * Its starter's stop was kept while the commit was on its way to the slots: the job is not
     * spawned; it ends {@code Cancelled}, and that ending is recorded over the commit (a restart
     * then reads {@code Ended(Cancelled)}, not a job that may have run).
     */
    private void cancelledAtLaunch(JobId id) {
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ENDING, id.codephrase(),
                "cancelled before its launch: its starter's stop arrived while its commit was stored"));
        Message report = new Message.JobCancelled(me, id);
        endingsThisLife.put(id, report);
        recordOutcome(id, Outcome.ended(JobStatus.CANCELLED, 0, ""));
        unpin(id);
        send(report);
    }

    private void unpin(JobId job) {
        pinned.remove(job);
        if (fold != null) {
            fold.unpin(job);
        }
    }

    private void onEnded(JobId job, Ending e) {
        running.remove(job);
        head.ended(job);
        Message report = Endings.message(me, job, e, shuttingDown);
        long[] started = startTimes.remove(job);
        if (started != null) {
            SledClock c = cfg.clock().orElseThrow();
            report = Endings.timed(report, started[0], c.wallMillis(), (c.monotonicNanos() - started[1]) / 1_000_000);
        }
        endingsThisLife.put(job, report);
        journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ENDING, job.codephrase(), e.toString()));
        emit(new SledEvent.Ended(job, e));
        recordOutcome(job, Endings.outcome(e));
        unpin(job);
        send(report);
    }

    /** Writes {@code job}'s ending over its commit when the newest record still names it and the ending ranks higher. */
    private void recordOutcome(JobId job, Outcome o) {
        if (locker.trusted() && endedRecordChanges(job, o)) {
            try {
                Locker.Ticket<?> t = signed != null
                        ? signed.reserve(newest -> SignedCommit.ended(newest.orElseThrow(), job, o).orElseThrow())
                        : causal.reserve(newest -> Commit.ended(newest.orElseThrow(), job, o).orElseThrow());
                writer.store(t).publishOn(loop).subscribe(null, err -> guarded("outcome result",
                        () -> emit(new SledEvent.Failed("outcome write for " + job + ": " + err.getMessage()))));
            } catch (LockerException | RuntimeException ex) {
                emit(new SledEvent.Failed("outcome write for " + job + ": " + ex.getMessage()));
            }
        }
    }

    /** Whether the job's outcome changes the newest record (it is the committed job, and the outcome ranks higher). */
    private boolean endedRecordChanges(JobId job, Outcome o) {
        return signed != null ? signed.newest().flatMap(r -> SignedCommit.ended(r, job, o)).isPresent()
                : causal.newest().flatMap(r -> Commit.ended(r, job, o)).isPresent();
    }

    // ---- Skips, reaping and adjudication (sections 6 and 7) --------------------------------

    /**
     * A live request's skip is gossiped at once; a replayed one's after replay, if still without
     * status. Deliveries come in log order and the replayed ones are the log at entry, so until
     * replay drains every request met is a replayed one, and after it every new one is live.
     */
    private void skip(JobId job, Message.SkipReason reason) {
        if (ownStatus(job).isPresent() || !skipReported.add(job)) {
            return;
        }
        if (drained) {
            send(new Message.JobSkipped(me, job, reason));
        } else {
            deferredReports.add(new Deferred(job, new Message.JobSkipped(me, job, reason)));
        }
    }

    private void onDrained() {
        for (Deferred d : deferredReports) {
            if (ownStatus(d.job()).isEmpty()) {
                send(d.report());
            }
        }
        deferredReports.clear();
        reapZombies();
        adjudicate();
        List.copyOf(endingsThisLife.keySet()).forEach(this::reannounce); // a bounded copy: at most MAX_ENDINGS_KEPT
        List.copyOf(running.keySet()).forEach(this::reannounce);
        emit(new SledEvent.Drained(entrySeq));
    }

    private void reapZombies() {
        for (JobId z : fold.zombies(birth)) {
            if (adjudicatedFromRecord(z)) {
                continue;
            } else if (head.launchedThisLife(z)) {
                // A survivor of a migration: still running reports later; ended re-announces.
                Message ending = endingsThisLife.get(z);
                if (ending != null) {
                    send(ending);
                }
            } else {
                send(new Message.JobErrored(me, z, Message.JobError.INTERRUPTED,
                        "running when an earlier life of this sled ended", 0));
            }
        }
    }

    /**
     * A job this life committed, whose request this universe holds and whose status of this sled
     * it lacks (it started, ended, or failed its commit in a universe the sled has since left):
     * its start and its ending are told here once, so that no sled waits for them (a sequential
     * job) and no status is missing. A job still committing reports when it launches.
     */
    private void reannounce(JobId job) {
        Message ending = endingsThisLife.get(job);
        if (!drained || !head.committedThisLife(job) || ownStatus(job).isPresent() || fold.sessionOf(job).isEmpty()
                || (ending == null && !running.containsKey(job)) || !reannounced.add(job)) {
            return; // not ours to tell, told already, or ended so long ago that its ending is no longer kept
        }
        boolean told = !head.launchedThisLife(job) || send(new Message.JobStarted(me, job));
        if (!told || (ending != null && !send(ending))) {
            reannounced.remove(job); // the node refused it (still bootstrapping): a later request or entry tells it
        }
    }

    /** Once per record: the committed job's fate leaves the sled, from the record if nothing else tells it. */
    private void adjudicate() {
        // Section 6 and 7 (amended): the snapshot's committed job, whatever the current universe.
        Optional<Recorded> c = recordedCommit();
        // Once per entry, after replay: what this sled told in an earlier entry is in the replay
        // when it reached this universe's log, and told again when it did not (an announcement
        // into a universe the sled then left, or into a replica it then dropped for a peer's).
        if (c.isEmpty()) {
            return;
        }
        if (head.launchedThisLife(c.get().job())) {
            // Launched in this life and ended in a universe the sled has since left: its fate is
            // told here too (a session that survives the migration, as a signed one does, has a
            // sequential job waiting for it). One still running reports its ending when it ends.
            Message ending = endingsThisLife.get(c.get().job());
            if (ending != null && ownStatus(c.get().job()).isEmpty()) {
                boolean told = send(new Message.JobStarted(me, c.get().job())) && send(ending);
                journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ENDING, c.get().job().codephrase(),
                        told ? "told again in this universe" : "not told: the node refused the send"));
            }
            return;
        }
        JobId job = c.get().job();
        Optional<JobStatus> own = ownStatus(job).map(StatusProjection.Entry::status);
        boolean recordedEnding = c.get().outcome().isEnded() && c.get().outcome().status() != JobStatus.INTERRUPTED;
        // The record's ending is announced even when this sled's own Started is in gossip
        // without a terminal status: the crash lost the Stopped message, not the record's outcome.
        if (own.isEmpty() || (recordedEnding && !own.get().isTerminal())) {
            for (Message m : Endings.recorded(me, job, c.get().outcome())) {
                if (!(m instanceof Message.JobStarted && own.isPresent()) && !send(m)) {
                    return; // not told (a node still bootstrapping into this universe): the next entry tells it
                }
            }
        }
    }

    /** Section 7: the record's committed job is adjudicated, never reaped, when the record holds its ending. */
    private boolean adjudicatedFromRecord(JobId job) {
        return recordedCommit()
                .filter(c -> c.job().equals(job) && c.outcome().isEnded() && c.outcome().status() != JobStatus.INTERRUPTED)
                .isPresent() && !head.launchedThisLife(job);
    }

    /** The committed job of this entry's record and its recorded outcome, of either ordering. */
    private record Recorded(JobId job, Outcome outcome) {
    }

    private Optional<Recorded> recordedCommit() {
        if (signed != null) {
            return signedSnapshot.flatMap(SignedRecord::committed).map(c -> new Recorded(c.job(), c.outcome()));
        }
        return snapshot.flatMap(BoundaryRecord::committed).map(c -> new Recorded(c.job(), c.outcome()));
    }

    // ---- Helpers ----------------------------------------------------------------------

    /** This sled's own status of the job (the head rules' reading: queued and conflicts aside). */
    private Optional<StatusProjection.Entry> ownStatus(JobId job) {
        return head.ownStatus(job);
    }

    private boolean targetsMe(SignedJob job) {
        try {
            return sush.projections.targets.Target.parse(job.request().target()).runsOn(cfg.me());
        } catch (sush.projections.targets.TargetException e) {
            return false;
        }
    }

    /** Gossips {@code m}; false when the node refused it (the universe changed under the send, or it is still bootstrapping). */
    private boolean send(Message m) {
        try {
            gossip.send(MessageCodec.encode(m));
            emit(new SledEvent.Gossiped(m));
            return true;
        } catch (RuntimeException e) {
            // The universe changed under the send: the next entry re-announces what matters.
            emit(new SledEvent.Failed("gossip send of " + m.getClass().getSimpleName() + ": " + e.getMessage()));
            return false;
        }
    }

    private void emit(SledEvent e) {
        events.tryEmitNext(e);
    }

    private void journal(JournalRecord r) {
        // Once failed, nothing more is journaled: the journal may be what failed (a full disk
        // under its mapping, where the next write can crash the JVM outright instead of
        // throwing), and the daemon is on its way out with status 70.
        if (failed.isEmpty()) {
            journal.ifPresent(j -> j.append(r));
        }
    }
}
