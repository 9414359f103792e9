package sush.projections.fold;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;

/**
 * The active session's chain as this sled walks it: the chain itself (null while no session is
 * active), the job last offered at its head (so each is offered once), the last job this sled
 * ran in it (a sequential job waits for its end), and where each session named by the boundary
 * snapshot resumes.
 */
final class ChainWalk {
    private final TargetsMe targetsMe;
    /** Bound on one chain's memory ({@link FoldBounds#chainPositions()}). */
    private final int positions;
    /** Where each session named by the boundary snapshot resumes (the first named wins). */
    private final Map<SessionId, SledProjection.Resumption> resumptions = new HashMap<>();
    private ChainProjection chain;
    /** The job last offered at the head, so each is offered once. */
    private JobId offered;
    /** The last job this sled ran in the active session: a sequential job waits for its end. */
    private JobId lastRan;

    ChainWalk(TargetsMe targetsMe, int positions) {
        this.targetsMe = targetsMe;
        this.positions = positions;
    }

    /** An independent copy of {@code o}, its chain testing targets with {@code targetsMe}. */
    ChainWalk(ChainWalk o, TargetsMe targetsMe) {
        this.targetsMe = targetsMe;
        this.positions = o.positions;
        this.resumptions.putAll(o.resumptions);
        this.chain = o.chain == null ? null : new ChainProjection(o.chain, targetsMe);
        this.offered = o.offered;
        this.lastRan = o.lastRan;
    }

    /** Sets where a session resumes, once per entry; the first resumption given for a session wins. */
    void resume(SledProjection.Resumption at) {
        if (resumptions.size() < SledProjection.MAX_RESUMPTIONS) {
            resumptions.putIfAbsent(at.session(), at);
        }
    }

    /** Where {@code session} resumes, or null. */
    SledProjection.Resumption resumption(SessionId session) {
        return resumptions.get(session);
    }

    /** The active session's chain, or null while none is active. */
    ChainProjection chain() {
        return chain;
    }

    /** Session {@code session} became active: its chain starts, where the boundary snapshot says it resumes. */
    void activate(SessionId session) {
        Optional<SledProjection.Resumption> resumed = Optional.ofNullable(resumptions.get(session));
        chain = new ChainProjection(targetsMe, session, resumed.map(r -> new JobId[] {r.committed(), r.successor()}),
                positions);
        // The committed job may still run (a survivor): a sequential job waits for it too.
        lastRan = resumed.map(SledProjection.Resumption::committed).orElse(null);
    }

    /** The jobs of the active chain that target this sled and never ran here (none without a chain). */
    List<SignedJob> queuedForMe() {
        return chain == null ? List.of() : chain.queuedForMe();
    }

    /** The active session ended: no chain, no job run in it. */
    void end() {
        chain = null;
        lastRan = null;
    }

    /** Offers the job at the head once, when it first stands there. */
    void offerHead(List<SledProjection.Outcome> out) {
        if (chain == null) {
            offered = null;
            return;
        }
        for (SignedJob b : chain.drainBurnt()) {
            out.add(new SledProjection.Outcome.Burnt(b));
        }
        SignedJob at = chain.jobAtHead();
        if (at != null && !at.request().job().equals(offered)) {
            offered = at.request().job();
            out.add(new SledProjection.Outcome.AtHead(at));
        }
    }

    /** See {@link SledProjection#passHead}. */
    List<SledProjection.Outcome> passHead(JobId job, ChainProjection.Passed how) {
        if (chain == null) {
            throw new IllegalStateException("no active session");
        }
        chain.passHead(job, how);
        if (how == ChainProjection.Passed.RAN) {
            lastRan = job;
        }
        List<SledProjection.Outcome> out = new ArrayList<>(1);
        offerHead(out);
        return out;
    }

    /** See {@link SledProjection#jumpHead}. */
    List<SledProjection.Outcome> jumpHead(JobId from, JobId to) {
        if (chain == null || !chain.jump(from, to)) {
            return List.of();
        }
        List<SledProjection.Outcome> out = new ArrayList<>(1);
        offerHead(out);
        return out;
    }

    /**
     * The rack settled {@code job}: if it is the last job this sled ran, it ended here (settled
     * needs every sled it targets to have ended it), and its status is about to be forgotten, so
     * a sequential job no longer waits on it.
     */
    void settled(JobId job) {
        if (job.equals(lastRan)) {
            lastRan = null;
        }
    }

    /** See {@link SledProjection#forgetSettledPositions}. */
    void settledPositions(Collection<JobId> positions) {
        if (chain != null) {
            positions.forEach(chain::settle);
        }
    }

    /** See {@link SledProjection#mayStart}: {@code statuses} holds this sled's ({@code baseboard}) ends. */
    boolean mayStart(SignedJob job, StatusProjection statuses, String baseboard) {
        if (job.request().concurrent() || lastRan == null) {
            return true;
        }
        return statuses.status(lastRan, baseboard).map(e -> e.status().isTerminal()).orElse(false);
    }

    /** See {@link SledProjection#chainKey}. */
    String key() {
        return (chain == null ? "-" : chain.fingerprint()) + "|offered=" + offered + "|lastRan=" + lastRan;
    }
}
