package sush.projections.fold;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.projections.fold.SledProjection.Announced;
import sush.projections.fold.SledProjection.Outcome;
import sush.projections.fold.SledProjection.Resumption;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.job.Signatures;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * The per-message-kind folding of one sled's causal stream into its memories (which it owns and
 * {@link SledProjection} reads): each kind of message goes to its own step, and the steps say
 * what the message means for this sled as {@link Outcome}s, in the order they arise. Pure and
 * single-threaded; the same messages give the same outcomes in the same order.
 */
final class MessageFold {
    private final Sled me;
    private final TargetsMe targetsMe;
    /** Jobs are checked before they may take a chain position (pure: verification computes). */
    private final Signatures trust;
    /** The sessions of the rack's ordering. */
    final RackSessions sessions;
    /** The active session's chain as this sled walks it. */
    final ChainWalk walk;
    /** Requests held for sessions whose start has not arrived. */
    final EarlyMessages early;
    /** Sessions that stopped being active (or never were), and why. */
    final EndedSessions ended;
    /** The session of every job request folded, and the pinned jobs. */
    final JobSessions jobSessions;
    /** Own starts without an own terminal status yet (zombie candidates). */
    final OwnStarts ownStarts;
    final StatusProjection statuses;
    final Accesses accesses;
    final Map<String, Announced> announcements = new LinkedHashMap<>();
    /** Session messages of the other ordering (a start in a signed rack, a grant in a causal one): ignored. */
    private long otherOrdering;
    private long unknown;
    /** Scratch for {@link #fold}'s outcomes (the fold is single-threaded). */
    private final List<Outcome> outcomes = new ArrayList<>();

    MessageFold(Sled me, Signatures trust, Ordering ordering, FoldBounds bounds) {
        this.me = me;
        this.targetsMe = new TargetsMe(me);
        this.trust = trust;
        this.sessions = new RackSessions(ordering, bounds);
        this.walk = new ChainWalk(targetsMe, bounds.chainPositions());
        this.early = new EarlyMessages(bounds.earlyMessages());
        this.ended = new EndedSessions(bounds.sessionEndings());
        this.jobSessions = new JobSessions(bounds.jobSessions());
        this.ownStarts = new OwnStarts();
        this.statuses = new StatusProjection();
        this.accesses = new Accesses();
    }

    /** An independent copy of {@code o}: folding into one never changes the other. */
    MessageFold(MessageFold o) {
        this.me = o.me;
        this.targetsMe = new TargetsMe(o.me);
        this.trust = o.trust;
        this.sessions = new RackSessions(o.sessions);
        this.walk = new ChainWalk(o.walk, targetsMe);
        this.early = new EarlyMessages(o.early);
        this.ended = new EndedSessions(o.ended);
        this.jobSessions = new JobSessions(o.jobSessions);
        this.ownStarts = new OwnStarts(o.ownStarts);
        this.statuses = new StatusProjection(o.statuses);
        this.accesses = new Accesses(o.accesses);
        this.announcements.putAll(o.announcements);
        this.otherOrdering = o.otherOrdering;
        this.unknown = o.unknown;
    }

    /** The sled this fold is for. */
    Sled me() {
        return me;
    }

    /** Session messages of the other ordering, ignored. */
    long otherOrdering() {
        return otherOrdering;
    }

    long unknown() {
        return unknown;
    }

    /** Folds one message delivered at {@code version}: what it means for this sled, in order. */
    List<Outcome> fold(Version version, Message m) {
        // Most messages mean nothing for this sled: one list reused, copied only when not empty.
        List<Outcome> out = outcomes;
        out.clear();
        if (m instanceof Message.SessionAccess) {
            accesses.set((Message.SessionAccess) m);
        } else if (m instanceof Message.SessionGrant) {
            onGrant(((Message.SessionGrant) m).grant(), out);
        } else if (m instanceof Message.SessionStart && sessions.ordering == Ordering.SIGNED) {
            otherOrdering++;
        } else if (m instanceof Message.SessionStop && sessions.ordering == Ordering.SIGNED) {
            onSignedStop((Message.SessionStop) m, out);
        } else if (m instanceof Message.SessionStart) {
            onStart(version, (Message.SessionStart) m, out);
        } else if (m instanceof Message.SessionStop) {
            onStop((Message.SessionStop) m, out);
        } else if (m instanceof Message.JobStart) {
            SignedJob job = ((Message.JobStart) m).job();
            jobSessions.remember(job.request().job(), job.request().session());
            onJobStart(job, m, out);
        } else if (m instanceof Message.JobSkip) {
            onSkip((Message.JobSkip) m);
        } else if (m instanceof Message.Announcement) {
            onAnnouncement(version, (Message.Announcement) m);
        } else if (m instanceof Message.Unknown) {
            unknown++;
        } else if (m instanceof Message.TrustChange) {
            // Issue 41: which signers this sled trusts, from here on in causal order.
            trust.change(((Message.TrustChange) m).change());
        } else if (m instanceof Message.OperatorLogin || m instanceof Message.OperatorRevoked
                || m instanceof Message.OperatorUnrevoked) {
            // Who may ask: the API's concern (ops), not the chain's.
        } else if (m instanceof Message.Watermark) {
            // What the rack may forget, and the chain's skeleton: the settlement's (Settlement).
        } else if (m instanceof Message.JobReceipt) {
            receiptJob((Message.JobReceipt) m).ifPresent(job -> statuses.receipt(job, (Message.JobReceipt) m));
        } else if (m instanceof Message.JobSledSkip) {
            Message.JobSledSkip k = (Message.JobSledSkip) m;
            if (starterOf(k.job()).map(k.by()::equals).orElse(false)) {
                statuses.skipSled(k.job(), k.cubby());
            }
        } else {
            onStatus(version, m);
        }
        walk.offerHead(out);
        return out.isEmpty() ? List.of() : List.copyOf(out);
    }

    /** Signed ordering: a starter's stop of a granted session. */
    private void onSignedStop(Message.SessionStop stop, List<Outcome> out) {
        Optional<SessionProjection.Session> before = sessions.active();
        sessions.signed.onStop(stop.session(), stop.by());
        signedChange(before, out);
    }

    /** Causal ordering: a session start; one absorbed by an active session never becomes active. */
    private void onStart(Version version, Message.SessionStart start, List<Outcome> out) {
        SessionProjection causal = sessions.causal;
        boolean known = causal.session(start.session()).isPresent();
        for (SessionProjection.Change c : causal.onStart(version, start)) {
            onSessionChange(c, out);
        }
        boolean absorbed = !known && causal.session(start.session()).isPresent()
                && !causal.active().map(a -> a.id().equals(start.session())).orElse(false)
                && !ended.contains(start.session());
        if (absorbed) {
            // Never activated: its requests, early or late, can never run here.
            ended.end(start.session(), SessionProjection.Ending.SUPERSEDED);
            releaseEarly(start.session(), out);
        }
    }

    /** Causal ordering: a session stop; one of a session not started yet is held until it starts. */
    private void onStop(Message.SessionStop stop, List<Outcome> out) {
        if (sessions.causal.session(stop.session()).isEmpty()) {
            early.hold(stop.session(), stop);
        }
        for (SessionProjection.Change c : sessions.causal.onStop(stop)) {
            onSessionChange(c, out);
        }
    }

    /** A starter's skip burns a position of the active session; one of an unknown session is held. */
    private void onSkip(Message.JobSkip skip) {
        var active = sessions.active();
        if (sessions.session(skip.session()).isEmpty()) {
            early.hold(skip.session(), skip);
        } else if (walk.chain() != null && active.isPresent() && active.get().id().equals(skip.session())
                && active.get().starter().equals(skip.by())) {
            walk.chain().onBurn(skip.position());
        }
    }

    /** A sled's announcement, kept for known sleds and up to {@link SledProjection#MAX_SLEDS}. */
    private void onAnnouncement(Version version, Message.Announcement a) {
        if (announcements.containsKey(a.baseboard()) || announcements.size() < SledProjection.MAX_SLEDS) {
            announcements.put(a.baseboard(), new Announced(a, version));
        }
    }

    /** A job status (this sled's own starts are remembered as zombie candidates until they end). */
    private void onStatus(Version version, Message m) {
        if (m instanceof Message.JobStarted && ((Message.JobStarted) m).baseboard().equals(me.baseboard())) {
            ownStarts.started(((Message.JobStarted) m).job(), version);
        }
        statuses.apply(m);
        ownStarts.forgetEnded(m, statuses, me.baseboard());
    }

    private void onJobStart(SignedJob job, Message m, List<Outcome> out) {
        SessionId session = job.request().session();
        boolean active = walk.chain() != null && sessions.active().map(s -> s.id().equals(session)).orElse(false);
        if (active) {
            Optional<InvalidJobReason> refusal = trust.check(job, session);
            Resumption r = walk.resumption(session);
            if (refusal.isPresent()) {
                out.add(new Outcome.InvalidJob(job, refusal.get()));
            } else if (r != null && r.committed().equals(job.request().job())
                    && !r.successor().equals(job.request().successor())) {
                // The record committed another request at this position: this one is another job.
                out.add(new Outcome.Conflict(job, r.successor()));
            } else {
                ChainProjection.Taken taken = walk.chain().onJob(job);
                if (taken instanceof ChainProjection.Taken.Conflicting) {
                    ChainProjection.Conflict c = ((ChainProjection.Taken.Conflicting) taken).conflict();
                    out.add(new Outcome.Conflict(c.refused(), c.held().request().successor()));
                } else if (taken instanceof ChainProjection.Taken.Full) {
                    out.add(new Outcome.ChainFull(job));
                }
            }
        } else if (ended.contains(session)) {
            if (targetsMe(job)) {
                out.add(new Outcome.SessionEnded(session, ended.get(session), List.of(job)));
            }
        } else if (sessions.session(session).isEmpty()) {
            early.hold(session, m);
        }
    }

    /**
     * Ordered-sessions.md section 2: a valid grant takes its place in the signer's order; the
     * newest one not stopped is active. A grant older than the newest never becomes active, so
     * its requests end here as superseded. Grants of a causal rack and grants that fail the
     * trust check are counted and ignored.
     */
    private void onGrant(SignedGrant g, List<Outcome> out) {
        if (sessions.ordering != Ordering.SIGNED) {
            otherOrdering++;
            return;
        }
        if (trust.grant(g).isPresent()) {
            sessions.refused();
            return;
        }
        SessionId id = g.grant().session();
        sessions.remember(g, jobSessions);
        Optional<SessionProjection.Session> before = sessions.active();
        boolean newest = sessions.signed.onGrant(g);
        signedChange(before, out);
        boolean isNewest = sessions.isNewest(id);
        if (!isNewest && !ended.contains(id)) {
            // Older than a grant this sled holds: it is never active here.
            ended.end(id, SessionProjection.Ending.SUPERSEDED);
            releaseEarly(id, out);
        } else if (newest && sessions.signed.active().isEmpty() && !ended.contains(id)) {
            // Its starter's stop arrived first: it was never active.
            ended.end(id, SessionProjection.Ending.STOPPED);
            releaseEarly(id, out);
        }
    }

    /** The signed fold's active session moved: the one before ends, the new one is activated. */
    private void signedChange(Optional<SessionProjection.Session> before, List<Outcome> out) {
        Optional<SessionProjection.Session> after = sessions.active();
        if (before.map(SessionProjection.Session::id).equals(after.map(SessionProjection.Session::id))) {
            return;
        }
        if (before.isPresent()) {
            boolean stillNewest = sessions.isNewest(before.get().id());
            onSessionChange(new SessionProjection.Change.Ended(before.get(), stillNewest
                    ? SessionProjection.Ending.STOPPED : SessionProjection.Ending.SUPERSEDED), out);
        }
        if (after.isPresent()) {
            onSessionChange(new SessionProjection.Change.Activated(after.get()), out);
        }
    }

    private void onSessionChange(SessionProjection.Change c, List<Outcome> out) {
        if (c instanceof SessionProjection.Change.Activated) {
            SessionProjection.Session s = ((SessionProjection.Change.Activated) c).session();
            walk.activate(s.id());
            releaseEarly(s.id(), out);
        } else if (c instanceof SessionProjection.Change.Ended) {
            SessionProjection.Change.Ended e = (SessionProjection.Change.Ended) c;
            ended.end(e.session().id(), e.why());
            List<SignedJob> queued = walk.queuedForMe();
            out.add(new Outcome.SessionEnded(e.session().id(), e.why(), queued));
            walk.end();
        } else {
            SessionProjection.Change.Concurrent k = (SessionProjection.Change.Concurrent) c;
            out.add(new Outcome.ConcurrentSessions(k.first(), k.second()));
            ended.end(k.second().id(), SessionProjection.Ending.ANNIHILATED);
            releaseEarly(k.second().id(), out);
        }
    }

    /** Applies what was held for {@code session}, in the order it arrived. */
    private void releaseEarly(SessionId session, List<Outcome> out) {
        List<Message> held = early.release(session);
        if (held == null) {
            return;
        }
        for (Message m : held) {
            if (m instanceof Message.JobStart) {
                onJobStart(((Message.JobStart) m).job(), m, out);
                SignedJob job = ((Message.JobStart) m).job();
                if (walk.chain() != null && sessions.active().map(s -> s.id().equals(session)).orElse(false)
                        && walk.chain().precedesHead(job.request().job())) {
                    out.add(new Outcome.Released(job));
                }
            } else if (m instanceof Message.JobSkip) {
                Message.JobSkip skip = (Message.JobSkip) m;
                var active = sessions.active();
                if (walk.chain() != null && active.isPresent() && active.get().id().equals(session)
                        && active.get().starter().equals(skip.by())) {
                    walk.chain().onBurn(skip.position());
                }
            } else if (m instanceof Message.SessionStop && sessions.ordering == Ordering.CAUSAL) {
                for (SessionProjection.Change c : sessions.causal.onStop((Message.SessionStop) m)) {
                    onSessionChange(c, out);
                }
            }
        }
    }

    /** The job a receipt speaks of, when its body reads (D-060: checked offline, by {@code sush audit verify}). */
    static Optional<JobId> receiptJob(Message.JobReceipt r) {
        try {
            return Optional.of(sush.projections.job.Receipt.parse(r.body()).job());
        } catch (sush.projections.job.KeyException e) {
            return Optional.empty();
        }
    }

    /**
     * The starter of {@code job}'s session: its pin's, else its session's when this fold knows
     * the request; empty when it does not (a stop or a skip of it is not honoured).
     */
    Optional<String> starterOf(JobId job) {
        SledProjection.Pin p = jobSessions.pin(job);
        if (p != null) {
            return Optional.of(p.starter());
        }
        SessionId s = jobSessions.get(job);
        if (s == null && walk.chain() != null) {
            s = walk.chain().known(job).map(j -> j.request().session()).orElse(null);
        }
        return s == null ? Optional.empty() : sessions.session(s).map(SessionProjection.Session::starter);
    }

    private boolean targetsMe(SignedJob job) {
        return targetsMe.test(job.request().target());
    }
}
