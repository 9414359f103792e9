package sush.pipeline.sled;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import sush.gossip.clock.Version;
import sush.gossip.node.Entry;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.locker.admission.FloorCause;
import sush.locker.admission.HeadRules;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.pipeline.disk.DiskReserve;
import sush.pipeline.exec.Launcher;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalException;
import sush.pipeline.journal.JournalHistory;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.Ordering;
import sush.projections.fold.Settlement;
import sush.projections.fold.SledProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.id.Id88;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * One sled: a single-threaded state machine fed by the causal stream of its current universe.
 * Every method below {@link #start()} runs on {@code loop}, which must be single-threaded; the
 * boundary writer and the launcher report back onto it. Entries follow at-most-once.md section
 * 3, screening section 6, reaping and adjudication section 7.
 *
 * <p>This class is the façade and the entries: each entry builds one {@link EntryState}; its
 * deliveries are folded by {@link Ingress}, the head acted on by {@link Head}, commits and
 * launches made by {@link Launches}, fates told by {@link Adjudication}, all on the {@link Loop},
 * by the {@link OrderingRules} of the rack's ordering, chosen once, here.
 */
public final class SledRuntime {
    /** Bound on commits reserved and not yet launched; past it a job is refused, never queued unboundedly. */
    public static final int MAX_PENDING_LAUNCHES = 256;
    /** Bound on the endings of this life's jobs kept to be told again after a migration. */
    public static final int MAX_ENDINGS_KEPT = 4096;
    /** Bound on the event history a late subscriber (an SSE client reconnecting) can still read. */
    public static final int MAX_EVENT_HISTORY = 4096;
    /** RackError needs a session; errors about no session name this one. */
    static final SessionId NO_SESSION = new SessionId(new byte[11]);

    private final SledConfig cfg;
    private final Gossip gossip;
    private final Locker<?> locker;
    private final Loop loop;
    /** The rules of the rack's ordering: the locker's record format, so they never disagree. */
    private final OrderingRules order;
    private final BoundaryWriter writer;
    private final String me;
    /** The head rules and their memory of this life's commits and launches (shared with the chain check). */
    private final HeadRules head;
    private final Launches launches;
    private final Receipts receipts;
    private final Adjudication adjudication;
    private final Head chainHead;
    private final Ingress ingress;
    private final Settler settler;
    /** The settler's period (issue 39): disposed at the end of a life. */
    private Disposable marks;
    /** The newest entry the gossip node announced (it is entered once the writer drained). */
    private long latestEntry;
    /** The entry entered last: null before the first; left (no fold fed) while the next one waits for the writer. */
    private EntryState entry;
    private Disposable entries;
    /** The sled's journal, read back for the history the gossip set forgot (issue 39). */
    private final Optional<Journal> journal;
    /** One read of the journal at a time: each reads it whole. */
    private final Object history = new Object();

    public SledRuntime(SledConfig cfg, Gossip gossip, Locker<?> locker, Launcher launcher, Optional<Journal> journal,
            Scheduler loop, Scheduler writer) {
        this(cfg, gossip, locker, launcher, journal, loop, writer, Schedulers.immediate());
    }

    /**
     * @param ingress where deliveries are decoded and their jobs' signatures checked before the
     *                state machine folds them, in delivery order; a parallel scheduler keeps
     *                that work off {@code loop} and spreads it over the cores, and the
     *                immediate one does it inline (deterministic: the simulator and tests)
     */
    public SledRuntime(SledConfig cfg, Gossip gossip, Locker<?> locker, Launcher launcher, Optional<Journal> journal,
            Scheduler loop, Scheduler writer, Scheduler ingress) {
        this.cfg = cfg;
        this.gossip = gossip;
        this.locker = locker;
        this.loop = new Loop(loop, gossip, journal);
        this.journal = journal;
        // The rack's ordering is the locker's record format: one source, so they never disagree.
        this.order = OrderingRules.of(locker, cfg.me().baseboard(), this.loop);
        this.writer = new BoundaryWriter(locker, writer);
        this.me = cfg.me().baseboard();
        this.head = new HeadRules(cfg.me(), cfg.bounds());
        this.receipts = new Receipts(this.loop, me, () -> entry, head);
        this.loop.afterSend(receipts::reported);
        this.launches = new Launches(cfg, this.loop, head, order, () -> entry, locker, launcher, this.writer, receipts);
        this.adjudication = new Adjudication(cfg, this.loop, head, order, () -> entry, launches);
        this.chainHead = new Head(cfg, this.loop, head, order, () -> entry, launches, adjudication);
        this.settler = new Settler(cfg, this.loop, () -> entry, chainHead, head);
        this.ingress = new Ingress(cfg, this.loop, ingress, head, () -> entry, chainHead, adjudication, settler);
    }

    /**
     * Issue 40 (D-060): the sled signs a receipt of each commit, ending and refusal of its own with
     * {@code signer} (set before {@link #start}; a sled without one signs none, and null stops
     * signing: the launch bench measures both in one run).
     */
    public void signReceipts(ReceiptSigner signer) {
        receipts.signWith(signer, null);
    }

    /**
     * As {@link #signReceipts(ReceiptSigner)}, signing on {@code signing} instead of the sleds'
     * one signing thread (the simulator's virtual time, so that a seed replays the same).
     */
    public void signReceipts(ReceiptSigner signer, Scheduler signing) {
        receipts.signWith(signer, Objects.requireNonNull(signing, "signing"));
    }

    /** Follows the gossip node's entries from now on. */
    public void start() {
        entries = gossip.entries().publishOn(loop.scheduler()).subscribe(e -> loop.guarded("entry", () -> onEntry(e)),
                err -> loop.guarded("entry", () -> loop.failClosed("entry", err)));
        cfg.settling().ifPresent(s -> marks = loop.scheduler().schedulePeriodically(
                () -> loop.guarded("watermark", settler::tick), s.every().toMillis(), s.every().toMillis(),
                TimeUnit.MILLISECONDS));
    }

    /**
     * Fault injection for tests: {@code p} runs at the start of every stage of the loop (entry,
     * delivery, commit result, ending, outcome result) and may throw.
     */
    void probe(Consumer<String> p) {
        loop.probe(p);
    }

    /** Commits reserved and not yet launched or failed, read from any thread (metrics). */
    public int pendingLaunches() {
        return launches.pendingLaunches();
    }

    /**
     * How full the active session's chain is (0 to 1 of {@link sush.projections.fold.ChainProjection#bound()}),
     * as of the last delivery folded; 0 without one. Any thread.
     */
    public double chainFill() {
        return ingress.chainFill();
    }

    /**
     * Why the output disk counts as full now, if it does (below its reserve): jobs reaching the
     * head are refused {@code no-space} until space returns. Read from any thread.
     */
    public Optional<String> shortOfSpace() {
        return cfg.disk().shortage();
    }

    /** The output disk's reserve this sled keeps. */
    public DiskReserve disk() {
        return cfg.disk();
    }

    /** Why the sled stopped admitting (an unexpected failure in its loop), if it did. */
    public Optional<String> failure() {
        return loop.failure();
    }

    /**
     * The boundary slots were changed by something other than this sled's locker (issue 22):
     * the locker already distrusts them for this life, so nothing more is admitted; this says
     * so at once, in the journal and as an error event.
     */
    public void slotsChanged(String finding) {
        loop.scheduler().schedule(() -> {
            String why = finding + "; the boundary store is untrusted for the rest of this life and every later job "
                    + "targeting this sled is refused";
            loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", why));
            loop.emit(new SledEvent.Failed(why));
        });
    }

    /**
     * Graceful shutdown: running jobs are stopped (their endings are still reported while the
     * gossip node lives). Runs on the loop.
     */
    public void stop() {
        loop.scheduler().schedule(launches::stopAll);
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
        loop.scheduler().schedule(() -> {
            if (entries != null) {
                entries.dispose();
            }
            if (marks != null) {
                marks.dispose();
            }
            ingress.stop();
            writer.dispose();
        });
    }

    /**
     * As {@link #halt()}, for a daemon about to close the journal and links its stages use: no
     * stage runs from now on, and this returns once the loop has finished the one it was running
     * (within {@code within}; false when it did not say so in time).
     */
    public boolean close(Duration within) {
        loop.close();
        halt();
        try {
            return Boolean.TRUE.equals(Mono.fromCallable(() -> Boolean.TRUE).subscribeOn(loop.scheduler())
                    .block(within));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Everything the sled does, in order; a late subscriber first gets the recent history. */
    public Flux<SledEvent> events() {
        return loop.events();
    }

    /** The fold of the current entry, read on the loop (tests, the API's queries). */
    public Mono<View> view() {
        return Mono.fromCallable(this::currentView).subscribeOn(loop.scheduler());
    }

    /**
     * The statuses of {@code job} this sled's journal holds (issue 39): what a job's status was
     * once every sled forgot it from gossip and this one restarted since. Read only when the
     * current universe forgot anything (so an unknown job id costs no read otherwise), off the
     * loop, one read at a time; empty without a journal.
     */
    public Mono<StatusProjection> journalStatuses(JobId job) {
        return readBack(network -> JournalHistory.statuses(journal.get(), job), new StatusProjection());
    }

    /**
     * Issue 40 (D-060): the receipts this sled holds whose body {@code wanted} accepts: those its
     * fold keeps with {@code jobs} (the jobs asked, as the fold knows them), then its journal's
     * (every life's deliveries), each once. A journal that cannot be read is {@link HistoryUnavailable}.
     */
    public Mono<List<Message.JobReceipt>> receipts(Function<SledProjection, java.util.Collection<JobId>> jobs,
            java.util.function.Predicate<sush.projections.job.Receipt> wanted) {
        return query(v -> {
            java.util.LinkedHashSet<Message.JobReceipt> held = new java.util.LinkedHashSet<>();
            if (v.fold() != null) {
                jobs.apply(v.fold()).forEach(j -> held.addAll(v.fold().statuses().receipts(j)));
            }
            return held;
        }).publishOn(Schedulers.boundedElastic()).map(held -> {
            if (journal.isPresent()) {
                synchronized (history) {
                    try {
                        held.addAll(JournalHistory.receipts(journal.get(), wanted));
                    } catch (JournalException e) {
                        throw new HistoryUnavailable("this sled's journal could not be read: " + e.getMessage(), e);
                    }
                }
            }
            return List.copyOf(held);
        });
    }

    /** A read of the journal: it may fail. */
    private interface JournalRead<T> {
        T read(NetworkId network) throws JournalException;
    }

    /**
     * {@code read} of the current universe, off the loop and one read at a time, once the universe
     * forgot anything and this sled keeps a journal; {@code none} otherwise.
     */
    private <T> Mono<T> readBack(JournalRead<T> read, T none) {
        return forgetful().publishOn(Schedulers.boundedElastic()).map(network -> {
            if (network.isEmpty()) {
                return none;
            }
            synchronized (history) {
                try {
                    return read.read(network.get());
                } catch (JournalException e) {
                    throw new HistoryUnavailable("this sled's journal could not be read: " + e.getMessage(), e);
                }
            }
        });
    }

    /** The current universe, when this sled keeps a journal and the universe forgot anything. */
    private Mono<Optional<NetworkId>> forgetful() {
        return Mono.fromCallable(() -> {
            EntryState at = entry;
            return at == null || journal.isEmpty() || at.replica().forgottenCeiling().equals(Version.ZERO)
                    ? Optional.<NetworkId>empty() : Optional.of(at.network());
        }).subscribeOn(loop.scheduler());
    }

    /** The journal, asked for what the gossip set forgot, could not be read. */
    public static final class HistoryUnavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HistoryUnavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * What this sled's journal holds of the current universe when this sled forgot anything of it
     * (issue 39: the jobs its fold no longer knows after a restart); nothing read otherwise, or
     * without a journal. Read off the loop, one read at a time.
     */
    public Mono<JournalHistory.Universe> forgottenHistory() {
        return readBack(network -> JournalHistory.of(journal.get(), network), JournalHistory.Universe.none());
    }

    /**
     * Where {@code session}'s live chain goes on after {@code position}, when the rack settled and
     * forgot the chain there (issue 39: this sled holds nothing at the position and every other
     * sled passed it), by the rule a sled's own head jumps by ({@link Settlement#jumpFor}: only
     * where the way on is certain, never onto another branch); empty otherwise, and when the
     * sled does not settle, when the session is not the active one here (the chain held is the
     * active session's: an ended one's forks are forgotten once every sled is done with it), or
     * while the session holds a burn or a fork ({@link Settlement#mayFork}: a client's tip may lie
     * on either way). What the chain's endpoint tells a client whose kept
     * tip the rack forgot. By ordinal alone it named positions on another branch in 157 of 2,000
     * signed simulator seeds (checker "continues across", D-057).
     */
    public Mono<Optional<JobId>> continuesAt(SessionId session, JobId position) {
        return Mono.fromCallable(() -> {
            EntryState at = entry;
            if (at == null || !at.folding() || at.settlement() == null
                    || at.fold().chain().map(c -> c.holds(position)).orElse(true)) {
                return Optional.<JobId>empty();
            }
            Settlement s = at.settlement();
            if (s.rule() == Settlement.Break.ANY_BRANCH) { // the endpoint before D-057, for its checker
                return s.pastEverywhereElse(session, position, me) ? s.nextLive(session, position, me)
                        : Optional.<JobId>empty();
            }
            if (!at.fold().activeSession().map(a -> a.id().equals(session)).orElse(false) || s.mayFork(session)) {
                return Optional.<JobId>empty();
            }
            return s.jumpFor(session, position, me);
        }).subscribeOn(loop.scheduler());
    }

    /**
     * Issue 40: what this sled would do now with a job at the active session's next position
     * ({@code verdict} run, wait, refuse or not-targeted, and why; {@code wave} its wave in a job
     * in waves; {@code waitingFor} the position its head stands at when it waits for earlier jobs).
     */
    public record Plan(String verdict, String reason, Integer wave, String waitingFor) {
        static Plan of(String verdict, String reason) {
            return new Plan(verdict, reason, null, null);
        }
    }

    /**
     * {@code sush job plan} on this sled: {@code request} (unsigned: nothing is signed, kept or
     * gossiped) placed at the active session's next free position, judged by the head's rules
     * without committing anything.
     */
    public Mono<Plan> plan(Function<JobId, JobRequest> request) {
        return Mono.fromCallable(() -> {
            // What no session changes: a store this life does not trust, a signed sled never provisioned.
            if (!locker.trusted()) {
                return Plan.of("refuse", "this sled's boundary store is untrusted for the rest of this life");
            }
            if (order.ordering() == Ordering.SIGNED && locker.newest().isEmpty()) {
                return Plan.of("refuse", "unprovisioned: its boundary slots hold no record (`sush locker provision`)");
            }
            EntryState at = entry;
            Optional<JobId> next = at == null || !at.folding() ? Optional.empty()
                    : at.fold().chain().map(c -> c.nextFree());
            JobId position = next.orElse(NO_POSITION);
            SignedJob unsigned = new SignedJob(request.apply(position), new KeyId(new byte[Id88.BYTES]),
                    SignatureAlgorithm.ED25519, new byte[0]);
            return chainHead.plan(unsigned);
        }).subscribeOn(loop.scheduler());
    }

    /** The position a plan judges when no chain is known here (it only says why it waits). */
    private static final JobId NO_POSITION = new JobId(new byte[Id88.BYTES]);

    /** Runs {@code f} on the loop, where the fold may be read; for the API's queries. */
    public <T> Mono<T> query(Function<View, T> f) {
        return Mono.fromCallable(() -> f.apply(currentView())).subscribeOn(loop.scheduler());
    }

    private View currentView() {
        EntryState at = entry;
        return new View(at == null ? null : at.network(), at != null && at.folding() ? at.fold() : null,
                order.ordering(), locker.newest().map(r -> (Object) r), at == null ? Optional.empty() : at.floor(),
                locker.trusted(), Set.copyOf(launches.running()), launches.pendingLaunches());
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
        ingress.stop();
        if (entry != null && entry.folding()) {
            order.leaving(entry.fold());
            entry.leave();
        }
        // Step 1: nothing of the new entry happens before every queued boundary write is done.
        writer.drain().publishOn(loop.scheduler()).subscribe(null,
                err -> loop.guarded("entry", () -> loop.failClosed("entry", err)),
                () -> loop.guarded("entry", () -> enter(e)));
    }

    private void enter(Entry e) {
        if (e.sequence() != latestEntry) {
            return; // a newer entry arrived while the writer drained
        }
        NetworkId network = e.network();
        Replica replica = e.replica();
        OrderingRules.AtEntry record = order.atEntry(network);
        EntryState at = new EntryState(e.sequence(), network, replica, record.snapshot(), record.signedSnapshot(),
                replica.frontier(), replica.view().logSize());
        entry = at;
        loop.send(new Message.Announcement(me, cfg.software(), cfg.me().cubby(), cfg.api().orElse(null)));
        record.floor().ifPresent(this::raiseEntryFloor);
        Version birth = replica.frontier();
        SledProjection fold = new SledProjection(cfg.me(), cfg.trust(), order.ordering(), cfg.bounds());
        at.startFolding(fold, birth);
        settler.enter(at);
        head.enter(fold);
        launches.pinned().forEach((job, p) -> fold.pin(job, p.pin()));
        resume(at);
        order.entered(at, e.cause() == Entry.Cause.MIGRATION, launches.pinned().values());
        loop.journal(new JournalRecord.Entered(e.sequence(), network, e.cause().name()));
        loop.emit(new SledEvent.Entered(e.sequence(), network, e.cause().name(), record.floor()));
        if (at.replayUntil() == 0) {
            at.drain();
            adjudication.onDrained();
        }
        ingress.follow(at);
    }

    private void raiseEntryFloor(FloorCause cause) {
        if (cause == FloorCause.UNIVERSE_FLIP_FLOP) {
            loop.send(new Message.RackError(me, Message.RackErrorKind.UNIVERSE_FLIP_FLOP, NO_SESSION,
                    "back in universe " + entry.network() + ", which this sled left long ago"));
        }
        // Cause 2 has no error event; the floor still covers this entry's announcement.
        chainHead.raiseFloor(cause);
    }

    /**
     * Section 6 (amended): the sessions the entry's record names resume at their stored
     * successors before anything is screened (the ordering says which, {@link OrderingRules#resumptions}).
     */
    private void resume(EntryState at) {
        for (SledProjection.Resumption r : order.resumptions(at)) {
            at.fold().resume(r);
            loop.journal(new JournalRecord.Resumed(r.session(), r.committed(), r.successor()));
        }
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
}
