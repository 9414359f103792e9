package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Grants;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Sled;

/** The sled's fold in a rack of the signed ordering (ordered-sessions.md section 2). */
class SignedSledProjectionTest {
    private static final Sled ME = new Sled("p:me", 3);

    private static final SignedGrant G1 = Grants.signed(Signers.KEY, 100, 1, "op");
    private static final SignedGrant G2 = Grants.signed(Signers.KEY, 200, 2, "op");
    private static final SessionId S1 = G1.grant().session();
    private static final SessionId S2 = G2.grant().session();

    private static final class Fold {
        final SledProjection p = new SledProjection(ME, Signers.TRUST, Ordering.SIGNED);
        Version v = Version.ZERO;

        List<SledProjection.Outcome> apply(Message m) {
            v = v.tick(Id.ONE);
            return p.apply(v, MessageCodec.encode(m));
        }
    }

    @Test
    void theNewestGrantIsActiveAndItsJobsReachTheHead() {
        Fold f = new Fold();
        SignedJob[] jobs = Jobs.onTargets(Signers.KEY::sign, S1, "*", "3");
        assertEquals(List.of(), f.apply(new Message.SessionGrant(G1)));
        assertEquals(Optional.of(S1), f.p.activeSession().map(SessionProjection.Session::id));
        assertEquals(Optional.of(G1), f.p.activeGrant());
        assertEquals("op", f.p.session(S1).orElseThrow().starter());
        assertEquals(List.of(new SledProjection.Outcome.AtHead(jobs[0])), f.apply(new Message.JobStart(jobs[0])));
    }

    @Test
    void aNewerGrantSupersedesTheActiveSessionAndAnOlderOneNeverBecomesActive() {
        Fold f = new Fold();
        SignedJob[] old = Jobs.onTargets(Signers.KEY::sign, S1, "*");
        f.apply(new Message.SessionGrant(G2));
        assertEquals(List.of(), f.apply(new Message.SessionGrant(G1)), "no outcome: nothing of S1 was queued");
        assertEquals(Optional.of(S2), f.p.activeSession().map(SessionProjection.Session::id));
        assertEquals(List.of(new SledProjection.Outcome.SessionEnded(S1, SessionProjection.Ending.SUPERSEDED,
                List.of(old[0]))), f.apply(new Message.JobStart(old[0])), "a superseded session's job never runs");

        Fold g = new Fold();
        g.apply(new Message.SessionGrant(G1));
        g.apply(new Message.JobStart(old[0]));
        List<SledProjection.Outcome> out = g.apply(new Message.SessionGrant(G2));
        assertTrue(out.contains(new SledProjection.Outcome.SessionEnded(S1, SessionProjection.Ending.SUPERSEDED,
                List.of(old[0]))), out.toString());
        assertEquals(Optional.of(S2), g.p.activeSession().map(SessionProjection.Session::id));
    }

    @Test
    void aStopEndsTheNewestAndNoOlderGrantComesBack() {
        Fold f = new Fold();
        f.apply(new Message.SessionGrant(G1));
        f.apply(new Message.SessionGrant(G2));
        f.apply(new Message.SessionStop(S2, "intruder"));
        assertEquals(Optional.of(S2), f.p.activeSession().map(SessionProjection.Session::id), "only the starter stops");
        f.apply(new Message.SessionStop(S2, "op"));
        assertEquals(Optional.empty(), f.p.activeSession());
        f.apply(new Message.SessionGrant(G1));
        assertEquals(Optional.empty(), f.p.activeSession(), "an older grant does not come back");
    }

    @Test
    void startsInASignedRackAndForgedGrantsAreIgnored() {
        Fold f = new Fold();
        f.apply(new Message.SessionStart(S1, "p:a", new byte[32], new byte[] {1}, "op"));
        assertEquals(1, f.p.otherOrdering());
        f.apply(new Message.SessionGrant(Grants.signed(Signers.STRANGER, 300, 3, "op")));
        assertEquals(1, f.p.invalidGrants());
        assertEquals(Optional.empty(), f.p.activeSession());

        SledProjection causal = new SledProjection(ME, Signers.TRUST);
        causal.apply(Version.ZERO.tick(Id.ONE), MessageCodec.encode(new Message.SessionGrant(G1)));
        assertEquals(1, causal.otherOrdering());
        assertEquals(Optional.empty(), causal.activeSession());
    }

    @Test
    void everyDeliveryOrderFoldsToTheSameSessionsAndHead() {
        SignedJob[] s1 = Jobs.onTargets(Signers.KEY::sign, S1, "*", "*");
        SignedJob[] s2 = Jobs.onTargets(Signers.KEY::sign, S2, "*", "3", "*");
        List<Message> ms = new ArrayList<>(List.of(new Message.SessionGrant(G1), new Message.SessionGrant(G2),
                new Message.JobStart(s1[0]), new Message.JobStart(s1[1]), new Message.JobStart(s2[0]),
                new Message.JobStart(s2[1]), new Message.JobStart(s2[2])));
        String expected = null;
        Random r = new Random(7);
        for (int round = 0; round < 200; round++) {
            Collections.shuffle(ms, r);
            Fold f = new Fold();
            List<SledProjection.Outcome> heads = new ArrayList<>();
            for (Message m : ms) {
                List<SledProjection.Outcome> todo = new ArrayList<>(f.apply(m));
                while (!todo.isEmpty()) {
                    SledProjection.Outcome o = todo.remove(0);
                    if (o instanceof SledProjection.Outcome.AtHead) {
                        heads.add(o);
                        todo.addAll(f.p.passHead(((SledProjection.Outcome.AtHead) o).job().request().job(),
                                ChainProjection.Passed.RAN));
                    }
                }
            }
            String got = f.p.activeSession().map(s -> s.id().codephrase()).orElse("-") + " head="
                    + f.p.chain().map(c -> c.head().codephrase()).orElse("-") + " ran=" + heads.stream()
                    .filter(o -> ((SledProjection.Outcome.AtHead) o).job().request().session().equals(S2)).count();
            if (expected == null) {
                expected = got;
            }
            assertEquals(expected, got, "order " + ms);
        }
        assertTrue(expected.startsWith(S2.codephrase()), expected);
        assertTrue(expected.endsWith("ran=3"), expected);
    }

    @Test
    void grantsAreRememberedUpToTheSessionBoundOldestForgottenFirst() {
        Fold f = new Fold();
        SignedGrant first = null;
        SignedGrant last = null;
        for (int i = 0; i <= SessionProjection.MAX_SESSIONS; i++) {
            SignedGrant g = Grants.signed(Signers.KEY, 1_000 + i, i, "op");
            first = first == null ? g : first;
            last = g;
            f.apply(new Message.SessionGrant(g));
        }
        assertEquals(Optional.empty(), f.p.session(first.grant().session()), "one past the bound: the oldest is forgotten");
        assertEquals(Optional.of(last), f.p.grant(last.grant().session()));
        assertEquals(Optional.of(last.grant().session()), f.p.activeSession().map(SessionProjection.Session::id));
    }
}
