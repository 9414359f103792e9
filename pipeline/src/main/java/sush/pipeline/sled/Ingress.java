package sush.pipeline.sled;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import sush.gossip.set.Delivery;
import sush.gossip.set.Replica;
import sush.locker.admission.HeadRules;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;

/**
 * The causal stream of the entry folding now: its deliveries are read (decoded, a job's
 * signature checked) on the ingress scheduler ahead of the state machine, in delivery order,
 * then each is journaled, folded and acted on on the loop; the fold's bounded memories and the
 * gossip set's fill are reported as they grow.
 */
final class Ingress {
    /** Bound on deliveries the ingress stage reads ahead of the state machine. */
    static final int INGRESS_AHEAD = 64;
    /** Bound on deliveries buffered between gossip and the state machine. */
    static final int DELIVERY_PREFETCH = 256;

    private final SledConfig cfg;
    private final Loop loop;
    private final Scheduler ingress;
    private final HeadRules headRules;
    private final Supplier<EntryState> entry;
    private final Head head;
    private final Adjudication adjudication;
    private final Settler settler;
    private Disposable deliveries;
    /** Written on the loop, read by gauges. */
    private volatile double chainFill;

    /** A delivery as the ingress stage read it: decoded once, its job's signature checked. */
    private record Read(Delivery delivery, Optional<Message> message) {
    }

    /** A reporter's status of a job, as the fold holds it. */
    private record Report(JobId job, String baseboard, StatusProjection.Entry entry) {
    }

    /**
     * @param ingress where deliveries are read before the state machine folds them
     * @param entry   the entry folding now
     */
    Ingress(SledConfig cfg, Loop loop, Scheduler ingress, HeadRules headRules, Supplier<EntryState> entry, Head head,
            Adjudication adjudication, Settler settler) {
        this.settler = settler;
        this.cfg = cfg;
        this.loop = loop;
        this.ingress = ingress;
        this.headRules = headRules;
        this.entry = entry;
        this.head = head;
        this.adjudication = adjudication;
    }

    /** Follows the deliveries of entry {@code at}'s replica, from its first. */
    void follow(EntryState at) {
        long seq = at.seq();
        deliveries = at.replica().deliveries(0)
                .flatMapSequential(d -> Mono.fromCallable(() -> read(d)).subscribeOn(ingress), INGRESS_AHEAD, 1)
                .publishOn(loop.scheduler(), DELIVERY_PREFETCH)
                .subscribe(r -> loop.guarded("delivery", () -> onDelivery(seq, r)),
                        err -> loop.guarded("delivery", () -> loop.failClosed("delivery", err)));
    }

    /** Stops following deliveries (a new entry, or the end of a life). */
    void stop() {
        if (deliveries != null) {
            deliveries.dispose();
            deliveries = null;
        }
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
        EntryState at = entry.get();
        if (at == null || seq != at.seq() || !at.folding()) {
            return;
        }
        Delivery d = read.delivery();
        Optional<Message> m = read.message();
        if (loop.journaling()) {
            loop.journal(new JournalRecord.Delivered(d.version(), d.payload(), signatureVerdict(m)));
        }
        Optional<SignedJob> request = m.flatMap(this::peek);
        request.ifPresent(j -> loop.emit(new SledEvent.Requested(j.request().job())));
        Optional<Report> before = m.flatMap(this::reportOf);
        // Each message is decoded once: the fold takes what peek already read.
        head.handle(m.isPresent() ? at.fold().apply(d.version(), m.get()) : at.fold().apply(d.version(), d.payload()));
        m.flatMap(this::reportOf).filter(after -> before.isEmpty() || !before.get().equals(after))
                .ifPresent(r -> loop.emit(new SledEvent.StatusChanged(r.job(), r.baseboard(), r.entry().status(),
                        r.entry().message())));
        request.ifPresent(head::behindHead);
        request.ifPresent(head::checkTarget);
        request.ifPresent(j -> adjudication.reannounce(j.request().job()));
        request.flatMap(j -> headRules.stopFor(j.request().job())).ifPresent(head::onStop);
        m.filter(x -> x instanceof Message.JobStop).ifPresent(x -> head.onStop((Message.JobStop) x));
        m.filter(x -> x instanceof Message.JobSkip).map(x -> (Message.JobSkip) x)
                .ifPresent(b -> head.walkBack(b.session(), b.position()));
        settler.onDelivery(at, d.version(), m);
        if (!at.drained() && d.checkpoint() >= at.replayUntil()) {
            at.drain();
            adjudication.onDrained();
        }
        head.retryWaiting();
        reportOverflow();
        reportEvictions();
        checkFill();
        checkChainFill();
    }

    /**
     * Reports the active session's chain crossing 80% and 100% of what it can remember, once
     * each per entry and session, and publishes its fill for the gauge.
     */
    private void checkChainFill() {
        EntryState at = entry.get();
        Optional<ChainProjection> chain = at.fold().chain();
        if (chain.isEmpty()) {
            chainFill = 0;
            return;
        }
        ChainProjection c = chain.get();
        int positions = c.remembered();
        chainFill = (double) positions / c.bound();
        int reached = SledRuntime.fillThreshold(positions, c.bound());
        Optional<SessionId> session = at.fold().activeSession().map(s -> s.id());
        if (session.isPresent() && at.chainFillReached(session.get(), reached)) {
            loop.emit(new SledEvent.ChainFill(session.get(), reached, positions, c.bound()));
        }
    }

    /** The active session's chain fill (0 to 1), as of the last delivery folded: for a gauge, any thread. */
    double chainFill() {
        return chainFill;
    }

    /** Reports the current universe's gossip set crossing 80% and 100% of its capacity, once each per entry. */
    private void checkFill() {
        EntryState at = entry.get();
        int held = at.replica().size();
        int reached = SledRuntime.fillThreshold(held, Replica.MAX_MESSAGES);
        if (at.fillReached(reached)) {
            loop.emit(new SledEvent.SetFill(reached, held, Replica.MAX_MESSAGES));
        }
    }

    /** The chain's bounds are explicit: what it could not remember is an error event, never a silent gap. */
    private void reportOverflow() {
        EntryState at = entry.get();
        long overflow = at.fold().chain().map(ChainProjection::overflow).orElse(0L);
        if (at.overflowGrew(overflow)) {
            loop.emit(new SledEvent.Failed("the active session's chain is past its bound of "
                    + ChainProjection.MAX_POSITIONS + " positions: " + overflow + " jobs, burns or walked positions "
                    + "not remembered (later jobs wait behind a hole; burns behind the head are ignored); start a "
                    + "new session"));
        }
    }

    /** Each bounded memory of the fold that forgot something says so (an event, for metrics and logs). */
    private void reportEvictions() {
        EntryState at = entry.get();
        long total = at.fold().evictionsTotal() + headRules.evictedStops();
        if (!at.evictionsChanged(total)) {
            return;
        }
        Map<String, Long> now = new TreeMap<>(at.fold().evictions());
        now.put("job-stops", headRules.evictedStops());
        now.forEach((memory, count) -> {
            if (count > at.evictionsReported().getOrDefault(memory, 0L)) {
                at.evictionsReported().put(memory, count);
                loop.emit(new SledEvent.Evicted(memory, count));
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
                    .map(reason -> reason == InvalidJobReason.UNKNOWN_KEY
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

    /** The fold's status for the job and reporter a job event is about. */
    private Optional<Report> reportOf(Message m) {
        // A conflict is said by its own event; every other report of a job, by the status it sets.
        return Message.report(m).filter(r -> !(m instanceof Message.JobConflict)).flatMap(r -> entry.get().fold()
                .statuses().status(r.job(), r.baseboard()).map(e -> new Report(r.job(), r.baseboard(), e)));
    }

    /** What the sled itself needs from a message beyond the fold: requests, stops, operator keys. */
    private Optional<SignedJob> peek(Message m) {
        if (m instanceof Message.JobStart) {
            return Optional.of(((Message.JobStart) m).job());
        } else if (m instanceof Message.OperatorLogin || m instanceof Message.OperatorRevoked
                || m instanceof Message.OperatorUnrevoked || m instanceof Message.TrustChange) {
            loop.emit(new SledEvent.Operator(m));
        }
        return Optional.empty();
    }
}
