package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.fold.SledProjection.Outcome;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.Grant;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * What each kind of message means for one sled (the steps of {@link MessageFold}), as the
 * outcomes {@link SledProjection#apply} returns: a start that is never activated, a concurrent
 * start, a request released behind a resumed head, a conflict with the committed request, a
 * grant older than the newest or one whose stop came first, announcements at their bound.
 */
class MessageFoldTest {
    private static final Sled ME = new Sled("p:me", 3);
    private static final byte[] NONCE = new byte[SessionIds.NONCE_BYTES];
    private static final SessionId S = SessionIds.compute("p:a", NONCE, new byte[] {1});
    private static final Message.SessionStart START = new Message.SessionStart(S, "p:a", NONCE, new byte[] {1}, "op");
    private static final SessionId S2 = SessionIds.compute("p:b", NONCE, new byte[] {2});
    private static final Message.SessionStart START2 = new Message.SessionStart(S2, "p:b", NONCE, new byte[] {2},
            "op2");
    private static final SessionId S3 = SessionIds.compute("p:c", NONCE, new byte[] {3});
    private static final Message.SessionStart START3 = new Message.SessionStart(S3, "p:c", NONCE, new byte[] {3},
            "op3");

    /** Folds messages one after the other, each causally after the one before (one party ticking). */
    private static final class Fold {
        final SledProjection p;
        Version v = Version.ZERO;

        Fold(Ordering ordering) {
            p = new SledProjection(ME, Signers.TRUST, ordering);
        }

        List<Outcome> apply(Message m) {
            v = v.tick(Id.ONE);
            return p.apply(v, m);
        }
    }

    private static SignedGrant grant(long epoch, int nonce) {
        byte[] n = new byte[Grant.NONCE_BYTES];
        n[0] = (byte) nonce;
        return Signers.KEY.sign(new Grant(epoch, Signers.KEY.id(), "op", n));
    }

    // ---- Causal ordering: starts. ----

    @Test
    void anActivatedSessionIsNotRememberedAsEnded() {
        Fold f = new Fold(Ordering.CAUSAL);
        f.apply(START);
        assertEquals(Optional.of(S), f.p.activeSession().map(SessionProjection.Session::id));
        assertTrue(f.p.digest().endsWith(";ended=0;accesses=0"), f.p.digest());
    }

    /**
     * A stale start (dominated by the active one's) is absorbed: it ends at once as superseded
     * and the request held for it is released as ended; the active chain says nothing of it,
     * even though the request names a position that chain walked past.
     */
    @Test
    void aStaleStartEndsAsSupersededAndReleasesItsHeldRequestAsEnded() {
        Fold f = new Fold(Ordering.CAUSAL);
        f.apply(START);
        SignedJob other = Jobs.onTargets(Signers.KEY::sign, S, "5")[0];
        f.apply(new Message.JobStart(other));
        assertEquals(other.request().successor(), f.p.chain().orElseThrow().head(),
                "the head walked past the first position");
        SignedJob held = Signers.KEY.sign(new JobRequest(S3, Chain.first(S), "echo", "*", false));
        assertEquals(List.of(), f.apply(new Message.JobStart(held)), "held: its session is not known yet");
        List<Outcome> out = f.p.apply(Version.ZERO.tick(Id.ONE.fork()[1]), START3);
        assertEquals(List.of(new Outcome.SessionEnded(S3, SessionProjection.Ending.SUPERSEDED, List.of(held))), out);
        assertEquals(Optional.of(S), f.p.activeSession().map(SessionProjection.Session::id));
    }

    /** A start concurrent with the active one ends both; the request held for the second is released as ended. */
    @Test
    void aConcurrentStartAnnihilatesBothAndReleasesTheSecondsHeldRequest() {
        Id[] halves = Id.ONE.fork();
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        SignedJob held = Jobs.onTargets(Signers.KEY::sign, S2, "*")[0];
        assertEquals(List.of(), p.apply(Version.ZERO.tick(halves[1]), new Message.JobStart(held)));
        p.apply(Version.ZERO.tick(halves[0]), START);
        List<Outcome> out = p.apply(Version.ZERO.tick(halves[1]), START2);
        SessionProjection.Session first = p.sessions().session(S).orElseThrow();
        SessionProjection.Session second = p.sessions().session(S2).orElseThrow();
        assertEquals(List.of(new Outcome.SessionEnded(S, SessionProjection.Ending.ANNIHILATED, List.of()),
                new Outcome.ConcurrentSessions(first, second),
                new Outcome.SessionEnded(S2, SessionProjection.Ending.ANNIHILATED, List.of(held))), out);
        SignedJob late = Jobs.onTargets(Signers.KEY::sign, S2, "*", "p:me")[1];
        assertEquals(List.of(new Outcome.SessionEnded(S2, SessionProjection.Ending.ANNIHILATED, List.of(late))),
                p.apply(Version.ZERO.tick(Id.ONE).tick(Id.ONE), new Message.JobStart(late)),
                "remembered as annihilated, not superseded");
    }

    // ---- Causal ordering: stops and late requests. ----

    @Test
    void aStoppedSessionLeavesNoChainAndItsLateRequestsEndOnlyWhereTheyTarget() {
        Fold f = new Fold(Ordering.CAUSAL);
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S, "*", "9", "3");
        f.apply(START);
        assertEquals(List.of(new Outcome.AtHead(jobs[0])), f.apply(new Message.JobStart(jobs[0])));
        assertEquals(List.of(new Outcome.SessionEnded(S, SessionProjection.Ending.STOPPED, List.of(jobs[0]))),
                f.apply(new Message.SessionStop(S, "op")));
        assertEquals(Optional.empty(), f.p.chain(), "no active session, no chain");
        assertEquals("-|offered=null|lastRan=null", f.p.chainKey());
        assertEquals(List.of(), f.apply(new Message.JobStart(jobs[1])), "cubby 9's job: nothing here");
        assertEquals(List.of(new Outcome.SessionEnded(S, SessionProjection.Ending.STOPPED, List.of(jobs[2]))),
                f.apply(new Message.JobStart(jobs[2])));
    }

    // ---- Resumption (the boundary snapshot). ----

    /** A request held until its session starts, resumed past its position, joins the chain behind the head. */
    @Test
    void aHeldRequestBehindTheResumedHeadIsReleased() {
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S, "*", "*");
        Fold f = new Fold(Ordering.CAUSAL);
        f.p.resume(new SledProjection.Resumption(S, jobs[0].request().job(), jobs[0].request().successor()));
        assertEquals(List.of(), f.apply(new Message.JobStart(jobs[0])));
        assertEquals(List.of(new Outcome.Released(jobs[0])), f.apply(START));
        assertEquals(List.of(new Outcome.AtHead(jobs[1])), f.apply(new Message.JobStart(jobs[1])));
    }

    /** The committed job's position holds another request in the record: this one is another job. */
    @Test
    void aRequestAtTheCommittedPositionWithAnotherSuccessorConflicts() {
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S, "*", "*");
        JobId recorded = Chain.afterBurn(jobs[0].request().job());
        Fold f = new Fold(Ordering.CAUSAL);
        f.p.resume(new SledProjection.Resumption(S, jobs[0].request().job(), recorded));
        f.apply(START);
        assertEquals(List.of(new Outcome.Conflict(jobs[0], recorded)), f.apply(new Message.JobStart(jobs[0])));
    }

    @Test
    void theRequestAfterTheCommittedOneDoesNotConflict() {
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S, "*", "*");
        Fold f = new Fold(Ordering.CAUSAL);
        f.p.resume(new SledProjection.Resumption(S, jobs[0].request().job(), jobs[0].request().successor()));
        f.apply(START);
        assertEquals(List.of(new Outcome.AtHead(jobs[1])), f.apply(new Message.JobStart(jobs[1])));
    }

    // ---- Signed ordering. ----

    @Test
    void aStartersStopEndsTheGrantedSessionAndItsChain() {
        SignedGrant g1 = grant(100, 1);
        SessionId s1 = g1.grant().session();
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, s1, "*");
        Fold f = new Fold(Ordering.SIGNED);
        f.apply(new Message.SessionGrant(g1));
        assertEquals(List.of(new Outcome.AtHead(jobs[0])), f.apply(new Message.JobStart(jobs[0])));
        assertEquals(List.of(new Outcome.SessionEnded(s1, SessionProjection.Ending.STOPPED, List.of(jobs[0]))),
                f.apply(new Message.SessionStop(s1, "op")));
        assertEquals(Optional.empty(), f.p.chain());
        assertEquals(Optional.of(g1), f.p.newestGrant(), "the newest grant, stopped");
        assertEquals(Optional.empty(), f.p.activeGrant());
    }

    @Test
    void anOlderGrantEndsAsSupersededAndReleasesItsHeldRequestAsEnded() {
        SignedGrant g1 = grant(100, 1);
        SignedGrant g2 = grant(200, 2);
        SignedJob held = Jobs.onTargets(Signers.KEY::sign, g1.grant().session(), "*")[0];
        Fold f = new Fold(Ordering.SIGNED);
        f.apply(new Message.SessionGrant(g2));
        assertEquals(List.of(), f.apply(new Message.JobStart(held)), "held: no grant of its session yet");
        assertEquals(List.of(new Outcome.SessionEnded(g1.grant().session(), SessionProjection.Ending.SUPERSEDED,
                List.of(held))), f.apply(new Message.SessionGrant(g1)));
        assertEquals(Optional.of(g2), f.p.newestGrant());
    }

    @Test
    void aGrantWhoseStartersStopCameFirstEndsAsStoppedAndReleasesItsHeldRequest() {
        SignedGrant g1 = grant(100, 1);
        SessionId s1 = g1.grant().session();
        SignedJob held = Jobs.onTargets(Signers.KEY::sign, s1, "*")[0];
        Fold f = new Fold(Ordering.SIGNED);
        assertEquals(List.of(), f.apply(new Message.SessionStop(s1, "op")));
        assertEquals(List.of(), f.apply(new Message.JobStart(held)));
        assertEquals(List.of(new Outcome.SessionEnded(s1, SessionProjection.Ending.STOPPED, List.of(held))),
                f.apply(new Message.SessionGrant(g1)));
        assertEquals(Optional.empty(), f.p.activeSession());
        assertEquals(Optional.of(g1), f.p.newestGrant());
    }

    // ---- Announcements and messages of later versions. ----

    @Test
    void announcementsAreKeptUpToTheirBoundAndAKeptOneStillChanges() {
        Fold f = new Fold(Ordering.CAUSAL);
        for (int i = 0; i <= SledProjection.MAX_SLEDS; i++) {
            f.apply(new Message.Announcement("p:s" + i, "1", i));
        }
        assertEquals(SledProjection.MAX_SLEDS, f.p.announcements().size());
        assertTrue(f.p.announcements().containsKey("p:s" + (SledProjection.MAX_SLEDS - 1)));
        assertFalse(f.p.announcements().containsKey("p:s" + SledProjection.MAX_SLEDS), "past the bound");
        f.apply(new Message.Announcement("p:s0", "2", 40));
        SledProjection.Announced a = f.p.announcements().get("p:s0");
        assertEquals(new Message.Announcement("p:s0", "2", 40), a.announcement(),
                "a known sled still changes at the bound");
        assertEquals(f.v, a.version());
    }

    @Test
    void messagesOfALaterFormatAreCounted() {
        Fold f = new Fold(Ordering.CAUSAL);
        assertEquals(List.of(), f.apply(new Message.Unknown(2, "future", new byte[] {1})));
        f.apply(new Message.Unknown(3, "later", new byte[] {2}));
        assertEquals(2, f.p.unknown());
        assertTrue(f.p.digest().contains(";unknown=2;"), f.p.digest());
    }
}
