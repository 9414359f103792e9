package sush.pipeline.sled;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

import sush.gossip.clock.Version;
import sush.locker.admission.HeadRules;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.Settlement;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.message.Message;

/**
 * Bounded gossip at the sled (bounded-gossip.md, issue 39): each entry's {@link Settlement} is fed
 * every delivery, and what it answers is forgotten from the entry's replica at once; each period
 * ({@link SledConfig.Settling#every()}), once the entry's replay is done, the sled sends a
 * watermark if its head moved or messages other than watermarks arrived since its last one (so
 * an idle rack sends none).
 */
final class Settler {
    private final SledConfig cfg;
    private final Loop loop;
    private final Supplier<EntryState> entry;
    private final Head head;
    private final HeadRules rules;

    Settler(SledConfig cfg, Loop loop, Supplier<EntryState> entry, Head head, HeadRules rules) {
        this.cfg = cfg;
        this.loop = loop;
        this.entry = entry;
        this.head = head;
        this.rules = rules;
    }

    /** A new entry settles from its first delivery (a new universe's set, a restarted sled's adopted one). */
    void enter(EntryState at) {
        cfg.settling().ifPresent(s -> at.settle(new Settlement(s.rack(), s.rule())));
    }

    /** A delivery of the entry was folded: the settlement takes it, and what it settles is forgotten. */
    void onDelivery(EntryState at, Version version, Optional<Message> m) {
        Settlement s = at.settlement();
        if (s == null || m.isEmpty()) {
            return;
        }
        s.apply(version, m.get());
        if (!(m.get() instanceof Message.Watermark)) {
            at.marks().news = true;
        }
        skeleton(at, s);
        List<Version> settled = s.drain();
        if (!settled.isEmpty()) {
            List<JobId> jobs = s.settledJobs();
            List<JobId> positions = s.settledPositions();
            loop.emit(new SledEvent.Forgot(settled, jobs)); // said first: a watcher may still read what goes
            at.replica().forget(settled);
            // And what the fold keeps of the settled jobs (D-054): the journal answers for them.
            at.fold().forgetSettled(jobs);
            at.fold().forgetSettledPositions(positions);
            rules.forgetSettled(jobs);
            at.forgetSettled(jobs);
        }
    }

    /**
     * The chain's skeleton: a head at a position this sled holds nothing of, which every sled of
     * the rack passed, stands on forgotten positions (a watermark comes after every position its
     * sled walked): it jumps to the first live position after them.
     */
    private void skeleton(EntryState at, Settlement s) {
        Optional<SessionId> session = at.fold().activeSession().map(x -> x.id());
        Optional<ChainProjection> chain = at.fold().chain();
        if (session.isEmpty() || chain.isEmpty()) {
            return;
        }
        JobId from = chain.get().head();
        if (chain.get().holds(from)) {
            return;
        }
        s.jumpFor(session.get(), from, cfg.me().baseboard()).ifPresent(to -> {
            loop.emit(new SledEvent.Jumped(session.get(), from, to));
            head.handle(at.fold().jumpHead(from, to));
        });
    }

    /** Periods a forgotten head stands before the sled says it cannot leave it (D-057). */
    static final int STUCK_PERIODS = 4;

    /**
     * A head this sled holds nothing of, which every other sled passed or came back to (delivery
     * is causal: what they walked reached this sled before their watermarks did, so the rack
     * forgot it; {@link Settlement#passedOrStoodOn}), and from
     * which it cannot jump ({@link Settlement#jumpFor} finds no certain way on: a burn or a fork
     * lies before it): the sled waits there rather than guess (D-055), and after
     * {@link #STUCK_PERIODS} periods says so once with a typed {@code RackError{ForgottenHead}}, so
     * that the operator learns why the session's jobs stay queued on it and that a new session
     * moves it on (D-057). A head some other sled has not passed yet is not stuck: it jumps once
     * they have.
     */
    private void sayIfStuck(EntryState at, SessionId session, ChainProjection chain, JobId position) {
        String me = cfg.me().baseboard();
        Settlement s = at.settlement();
        EntryState.Marks marks = at.marks();
        // A chain past its bound holds nothing where it could not remember: that is said already
        // (the chain's own report), and is not the rack forgetting.
        boolean stuck = !chain.holds(position) && chain.overflow() == 0
                && (s.rule() == Settlement.Break.ANY_HOLE || s.passedOrStoodOn(session, position, me))
                && s.jumpFor(session, position, me).isEmpty();
        if (!stuck) {
            marks.stuckAt = null;
            marks.stuckFor = 0;
            return;
        }
        if (!position.equals(marks.stuckAt)) {
            marks.stuckAt = position;
            marks.stuckFor = 0;
        }
        if (++marks.stuckFor == STUCK_PERIODS) {
            OptionalLong ordinal = s.ordinal(session, position); // known, unless a wrong rule says it anyway
            loop.send(new Message.RackError(me, Message.RackErrorKind.FORGOTTEN_HEAD, session, "waits at "
                    + position.codephrase() + " (position " + (ordinal.isPresent() ? ordinal.getAsLong() : "unknown")
                    + "), which it holds nothing of while the other sleds went on past it: the rack forgot it after a burn or a "
                    + "fork, and this sled cannot tell which way the chain goes on from there, so it runs nothing more of "
                    + "this session; start a new session to move it on"));
        }
    }

    /** Each period: a watermark, if the head moved or news arrived since the last one. */
    void tick() {
        EntryState at = entry.get();
        if (at == null || !at.folding() || !at.drained() || at.settlement() == null) {
            return;
        }
        // A session that ended here: this sled is done with every position of it, once said.
        List<SessionId> endedHere = at.fold().endedSessions();
        at.marks().closed.retainAll(endedHere);
        for (SessionId ended : endedHere) {
            if (at.marks().closed.add(ended)) {
                loop.send(new Message.Watermark(cfg.me().baseboard(), ended, Message.Watermark.DONE,
                        Chain.first(ended), Chain.first(ended), null));
            }
        }
        Optional<SessionId> session = at.fold().activeSession().map(x -> x.id());
        Optional<ChainProjection> chain = at.fold().chain();
        if (session.isEmpty() || chain.isEmpty()) {
            return;
        }
        JobId position = chain.get().head();
        sayIfStuck(at, session.get(), chain.get(), position);
        EntryState.Marks marks = at.marks();
        boolean moved = !session.get().equals(marks.session) || !position.equals(marks.head);
        if (!moved && !marks.news) {
            return;
        }
        OptionalLong ordinal = at.settlement().ordinal(session.get(), position);
        if (ordinal.isEmpty()) {
            return; // the head's place is not known yet: said once it is
        }
        JobId resume = chain.get().resumePoint();
        OptionalLong resumeOrdinal = at.settlement().ordinal(session.get(), resume);
        loop.send(new Message.Watermark(cfg.me().baseboard(), session.get(), ordinal.getAsLong(), position, resume,
                resumeOrdinal.isPresent() ? resumeOrdinal.getAsLong() : null));
        marks.session = session.get();
        marks.head = position;
        marks.news = false;
    }
}
