package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.fold.SledProjection.Outcome;
import sush.projections.fold.SledProjection.Pin;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.Grant;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Sled;

/**
 * What a sled's fold tells about itself: its counters and digest, what its bounds made it forget
 * (by memory and in total), the grants it keeps past its bound, pins, the session of a job, who
 * may stop it, its chain key, and what a copy keeps.
 */
class SledProjectionStateTest {
    private static final Sled ME = new Sled("p:me", 3);
    private static final byte[] NONCE = new byte[SessionIds.NONCE_BYTES];
    private static final SessionId S = SessionIds.compute("p:a", NONCE, new byte[] {1});
    private static final Message.SessionStart START = new Message.SessionStart(S, "p:a", NONCE, new byte[] {1}, "op");
    private static final SessionId LATER = SessionIds.compute("p:b", NONCE, new byte[] {2});
    private static final Message.SessionStart START_LATER = new Message.SessionStart(LATER, "p:b", NONCE,
            new byte[] {2}, "op2");

    /** Folds messages one after the other, each causally after the one before (one party ticking). */
    private static final class Fold {
        final SledProjection p;
        Version v = Version.ZERO;

        Fold(Ordering ordering, FoldBounds bounds) {
            p = new SledProjection(ME, Signers.TRUST, ordering, bounds);
        }

        Fold(Ordering ordering) {
            this(ordering, FoldBounds.DEFAULTS);
        }

        List<Outcome> apply(Message m) {
            v = v.tick(Id.ONE);
            return p.apply(v, m);
        }
    }

    /** The default bounds with {@code jobSessions} and {@code sessions} in place of theirs. */
    private static FoldBounds bounds(int jobSessions, int sessions) {
        FoldBounds d = FoldBounds.DEFAULTS;
        return new FoldBounds(jobSessions, sessions, d.sessionEndings(), d.chainPositions(), d.earlyMessages(),
                d.sessionStops(), d.jobStops());
    }

    private static SignedGrant grant(long epoch) {
        byte[] n = new byte[Grant.NONCE_BYTES];
        n[0] = (byte) epoch;
        return Signers.KEY.sign(new Grant(epoch, Signers.KEY.id(), "op", n));
    }

    private static JobId job(int i) {
        byte[] b = new byte[11];
        ByteBuffer.wrap(b).putInt(i);
        return new JobId(b);
    }

    private static Map<String, Long> evictions(long jobSessions, long grants, long sessions, long endings, long stops,
            long early, long chain) {
        return Map.of("job-sessions", jobSessions, "grants", grants, "sessions", sessions, "session-endings", endings,
                "session-stops", stops, "early-messages", early, "chain", chain);
    }

    // ---- Counters and digest. ----

    @Test
    void everyMessageIsCountedAppliedAndJoinsTheFrontier() {
        Id[] halves = Id.ONE.fork();
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version a = Version.ZERO.tick(halves[0]);
        Version b = Version.ZERO.tick(halves[1]);
        p.apply(a, "garbage".getBytes(StandardCharsets.UTF_8));
        assertTrue(p.digest().contains(";applied=1;malformed=1;"), p.digest());
        p.apply(b, MessageCodec.encode(START));
        assertEquals(a.join(b), p.frontier());
        assertEquals(Ordering.CAUSAL, p.ordering());
        assertEquals(Ordering.SIGNED, new SledProjection(ME, Signers.TRUST, Ordering.SIGNED).ordering());
        assertTrue(p.digest().contains(
                ";applied=2;malformed=1;faults=0;unknown=0;ordering=" + Ordering.CAUSAL + ";grants=0;"),
                p.digest());
        assertTrue(p.digest().contains(";active=" + S.codephrase() + ";"), p.digest());
        p.apply(b.tick(halves[1]), new Message.SessionAccess(S, "someone", Message.Access.WRITE, "op"));
        p.apply(b.tick(halves[1]).tick(halves[1]), new Message.JobStarted(ME.baseboard(), job(1)));
        assertTrue(p.digest().endsWith(";jobs=1;announced=[];starts=1;early=0;ended=0;accesses=1"), p.digest());
    }

    /** A message that trips the fold (here a status without a reporter) is counted, not thrown. */
    @Test
    void aMessageThatTripsTheFoldIsCountedAsAFault() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO.tick(Id.ONE);
        assertEquals(List.of(), p.apply(v, new Message.JobStarted(null, job(1))));
        assertEquals(1, p.faults());
        assertEquals(v, p.frontier());
        assertTrue(p.digest().contains(";applied=1;malformed=0;faults=1;"), p.digest());
    }

    @Test
    void theSignedFoldCountsItsGrants() {
        Fold f = new Fold(Ordering.SIGNED);
        f.apply(new Message.SessionGrant(grant(100)));
        f.apply(new Message.SessionGrant(grant(200)));
        assertTrue(f.p.digest().contains(";ordering=" + Ordering.SIGNED + ";grants=2;"), f.p.digest());
        assertEquals(Optional.of(grant(200)), f.p.newestGrant());
        assertEquals(Optional.empty(), new Fold(Ordering.CAUSAL).p.newestGrant());
    }

    @Test
    void theChainKeyIsTheChainsStateAndTheJobsOfferedAndRan() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        assertEquals("-|offered=null|lastRan=null", p.chainKey());
        p.apply(Version.ZERO.tick(Id.ONE), START);
        ChainProjection chain = p.chain().orElseThrow();
        assertEquals(chain.fingerprint() + "|offered=null|lastRan=null", p.chainKey());
    }

    /** A sequential job waits while the job this sled ran before has a status that is not terminal. */
    @Test
    void aSequentialJobWaitsWhileThePreviousJobIsStartedHere() {
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S, "*", "*");
        Fold f = new Fold(Ordering.CAUSAL);
        f.apply(START);
        f.apply(new Message.JobStart(jobs[0]));
        f.apply(new Message.JobStart(jobs[1]));
        JobId first = jobs[0].request().job();
        assertEquals(List.of(new Outcome.AtHead(jobs[1])), f.p.passHead(first, ChainProjection.Passed.RAN));
        f.apply(new Message.JobStarted(ME.baseboard(), first));
        assertFalse(f.p.mayStart(jobs[1]), "the previous job is running here");
        f.apply(new Message.JobErrored(ME.baseboard(), first, Message.JobError.KILLED, "stopped", 9));
        assertTrue(f.p.mayStart(jobs[1]));
    }

    /**
     * D-054: a settled job's statuses, conflicts and remembered session leave the fold, and a
     * sequential job after it (it ended here: settled needs that) no longer waits on its status.
     */
    @Test
    void aSettledJobLeavesTheFoldAndTheNextJobDoesNotWaitOnIt() {
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S, "*", "*", "*");
        Fold f = new Fold(Ordering.CAUSAL);
        f.apply(START);
        f.apply(new Message.JobStart(jobs[0]));
        f.apply(new Message.JobStart(jobs[1]));
        f.apply(new Message.JobStart(jobs[2]));
        JobId first = jobs[0].request().job();
        f.p.passHead(first, ChainProjection.Passed.RAN);
        f.apply(new Message.JobStarted(ME.baseboard(), first));
        f.apply(new Message.JobStopped(ME.baseboard(), first, 0, null, 0, new byte[32], 0, new byte[32]));
        assertTrue(f.p.mayStart(jobs[1]));
        f.p.forgetSettled(List.of(first));
        assertEquals(Map.of(), f.p.statuses().statuses(first), "its statuses went");
        assertEquals(Map.of(), f.p.statuses().conflicts(first));
        assertTrue(f.p.mayStart(jobs[1]), "the last job it ran was settled: nothing to wait on");
        assertEquals(Optional.of(S), f.p.sessionOf(first), "the active chain still knows the request");
        f.p.forgetSettled(List.of(jobs[1].request().job()));
        assertTrue(f.p.mayStart(jobs[1]), "forgetting a job it did not run changes nothing here");
        // Outside the active chain, only the remembered session said which session a job was of.
        JobId third = jobs[2].request().job();
        f.apply(START_LATER);
        assertEquals(Optional.of(S), f.p.sessionOf(third), "remembered after its session was superseded");
        f.p.forgetSettled(List.of(third));
        assertEquals(Optional.empty(), f.p.sessionOf(third), "forgotten with the settled job");
    }

    // ---- Evictions. ----

    /**
     * Every memory of a signed fold bounded at one, each made to forget: three grants (the first
     * forgotten, the second's ending pushes out the first's), two stops of sessions not granted,
     * requests of two sessions not granted, and two requests of the active session's chain.
     */
    @Test
    void aSignedFoldSaysWhatItsBoundsMadeItForget() {
        Fold f = new Fold(Ordering.SIGNED, new FoldBounds(1, 1, 1, 1, 1, 1, 1));
        assertEquals(evictions(0, 0, 0, 0, 0, 0, 0), f.p.evictions());
        assertEquals(0, f.p.evictionsTotal());
        SignedGrant g3 = grant(3);
        for (SignedGrant g : List.of(grant(1), grant(2), g3)) {
            f.apply(new Message.SessionGrant(g));
        }
        SessionId x1 = grant(11).grant().session();
        SessionId x2 = grant(12).grant().session();
        f.apply(new Message.SessionStop(x1, "op"));
        f.apply(new Message.SessionStop(x2, "op"));
        f.apply(new Message.JobStart(Jobs.onTargets(Signers.KEY::sign, x1, "*")[0]));
        f.apply(new Message.JobStart(Jobs.onTargets(Signers.KEY::sign, x2, "*")[0]));
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, g3.grant().session(), "*", "*");
        assertEquals(List.of(new Outcome.AtHead(jobs[0])), f.apply(new Message.JobStart(jobs[0])));
        assertEquals(List.of(new Outcome.ChainFull(jobs[1])), f.apply(new Message.JobStart(jobs[1])));
        assertEquals(evictions(3, 1, 0, 1, 1, 1, 1), f.p.evictions());
        assertEquals(8, f.p.evictionsTotal());
        assertTrue(f.p.digest().contains(";grants=2;"), f.p.digest());
        assertTrue(f.p.digest().endsWith(";early=1;ended=1;accesses=0"), f.p.digest());
    }

    /** A causal fold bounded at one session forgets the stopped one when the next starts. */
    @Test
    void aCausalFoldSaysWhatItsBoundsMadeItForget() {
        Fold f = new Fold(Ordering.CAUSAL, bounds(1, 1));
        f.apply(START);
        f.apply(new Message.SessionStop(S, "op"));
        f.apply(START_LATER);
        assertEquals(Optional.empty(), f.p.session(S));
        assertEquals(evictions(0, 0, 1, 0, 0, 0, 0), f.p.evictions());
        assertEquals(1, f.p.evictionsTotal());
    }

    // ---- Grants past their bound. ----

    @Test
    void grantsAreForgottenOnlyPastTheirBound() {
        Fold f = new Fold(Ordering.SIGNED, bounds(16, 3));
        List<SignedGrant> gs = List.of(grant(1), grant(2), grant(3), grant(4));
        for (int i = 0; i < 3; i++) {
            f.apply(new Message.SessionGrant(gs.get(i)));
        }
        assertEquals(Optional.of(gs.get(0)), f.p.grant(gs.get(0).grant().session()), "exactly the bound: all kept");
        assertEquals(0L, f.p.evictions().get("grants"));
        f.apply(new Message.SessionGrant(gs.get(3)));
        assertEquals(Optional.empty(), f.p.grant(gs.get(0).grant().session()), "one past it: the oldest goes");
        assertEquals(Optional.of(gs.get(1)), f.p.grant(gs.get(1).grant().session()));
        assertEquals(1L, f.p.evictions().get("grants"));
    }

    /** The newest grant held when another arrives is never the one forgotten. */
    @Test
    void theNewestGrantIsNotForgotten() {
        Fold f = new Fold(Ordering.SIGNED, bounds(16, 1));
        SignedGrant g1 = grant(1);
        SignedGrant g2 = grant(2);
        f.apply(new Message.SessionGrant(g1));
        f.apply(new Message.SessionGrant(g2));
        assertEquals(Optional.of(g1), f.p.grant(g1.grant().session()), "it was the newest when the second arrived");
        assertEquals(Optional.of(g2), f.p.grant(g2.grant().session()));
        f.apply(new Message.SessionGrant(grant(3)));
        assertEquals(Optional.empty(), f.p.grant(g1.grant().session()));
    }

    /** A pinned job's session keeps its grant; once unpinned it may go. */
    @Test
    void thePinnedSessionsGrantIsNotForgottenUntilUnpinned() {
        Fold f = new Fold(Ordering.SIGNED, bounds(16, 1));
        SignedGrant g1 = grant(1);
        SessionId s1 = g1.grant().session();
        f.p.pin(job(7), new Pin(s1, "op"));
        for (SignedGrant g : List.of(g1, grant(2), grant(3))) {
            f.apply(new Message.SessionGrant(g));
        }
        assertEquals(Optional.of(g1), f.p.grant(s1), "pinned");
        assertEquals(0L, f.p.evictions().get("grants"));
        f.p.unpin(job(7));
        f.apply(new Message.SessionGrant(grant(4)));
        assertEquals(Optional.empty(), f.p.grant(s1), "unpinned: the oldest goes");
        assertEquals(Optional.of(grant(2)), f.p.grant(grant(2).grant().session()));
    }

    // ---- The session of a job, pins, who may stop it. ----

    @Test
    void aPinGivesTheSessionAndWhoMayStopTheJob() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Pin pin = new Pin(S, "op");
        p.pin(job(1), pin);
        assertEquals(Map.of(job(1), pin), p.pins());
        assertEquals(Optional.of(S), p.sessionOf(job(1)), "from the pin alone: no request folded");
        assertTrue(p.mayStop(new Message.JobStop(job(1), "op")));
        assertFalse(p.mayStop(new Message.JobStop(job(1), "eve")));
        p.unpin(job(1));
        assertEquals(Map.of(), p.pins());
        assertEquals(Optional.empty(), p.sessionOf(job(1)));
        assertFalse(p.mayStop(new Message.JobStop(job(1), "op")));
    }

    /** The active chain still knows the session of a request the bounded memory forgot. */
    @Test
    void theActiveChainGivesTheSessionOfAForgottenRequest() {
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S, "*", "*");
        Fold f = new Fold(Ordering.CAUSAL, bounds(1, 16));
        f.apply(START);
        f.apply(new Message.JobStart(jobs[0]));
        f.apply(new Message.JobStart(jobs[1]));
        assertEquals(1L, f.p.evictions().get("job-sessions"));
        assertEquals(Optional.of(S), f.p.sessionOf(jobs[0].request().job()));
        assertTrue(f.p.mayStop(new Message.JobStop(jobs[0].request().job(), "op")));
    }

    // ---- Copies. ----

    @Test
    void aCopyKeepsGrantsAndPins() {
        Fold f = new Fold(Ordering.SIGNED);
        SignedGrant g1 = grant(1);
        f.apply(new Message.SessionGrant(g1));
        Pin pin = new Pin(g1.grant().session(), "op");
        f.p.pin(job(1), pin);
        SledProjection copy = f.p.copy();
        assertEquals(Optional.of(g1), copy.grant(g1.grant().session()));
        assertEquals(Map.of(job(1), pin), copy.pins());
    }

    @Test
    void aCopyKeepsAccessSettingsAndTheSessionsOfRequestsOutsideTheChain() {
        Fold f = new Fold(Ordering.CAUSAL);
        f.apply(START);
        f.apply(new Message.SessionAccess(S, "someone", Message.Access.WRITE, "op"));
        f.apply(START_LATER);
        SignedJob old = Jobs.onTargets(Signers.KEY::sign, S, "7")[0];
        f.apply(new Message.JobStart(old));
        SledProjection copy = f.p.copy();
        assertEquals(Message.Access.WRITE, copy.access(S, "someone"));
        assertEquals(Optional.of(S), copy.sessionOf(old.request().job()), "S is no longer active: not in the chain");
        assertTrue(copy.mayStop(new Message.JobStop(old.request().job(), "op")));
    }
}
