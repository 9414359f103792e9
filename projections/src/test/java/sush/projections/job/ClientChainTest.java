package sush.projections.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;

/** The client's kept chain (issue 34, ordered-sessions.md section 9): where the next job goes, and forks. */
class ClientChainTest {
    private static final SignerKey KEY = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
    private static final SessionId S = SessionIds.compute("913-0000019:CLIENT", new byte[SessionIds.NONCE_BYTES],
            new byte[] {7});

    private static SignedJob at(JobId position, String command) {
        return KEY.sign(new JobRequest(S, position, command, "*", false));
    }

    @Test
    void theTipFollowsKeptRequestsAndBurnsFromTheFirstPosition() {
        ClientChain c = new ClientChain(S);
        assertEquals(Chain.first(S), c.tip());
        SignedJob j0 = at(c.tip(), "j0");
        c.keep(j0);
        assertEquals(j0.request().successor(), c.tip());
        c.keepBurn(c.tip());
        assertEquals(Chain.afterBurn(j0.request().successor()), c.tip());
        c.keepStop(j0.request().job());
        assertEquals(Chain.afterBurn(j0.request().successor()), c.tip(), "a stop places nothing");
        assertEquals(3, c.entries().size());
    }

    @Test
    void aRequestIsKeptOnlyAtTheTip() {
        ClientChain c = new ClientChain(S);
        c.keep(at(c.tip(), "j0"));
        assertThrows(IllegalArgumentException.class, () -> c.keep(at(Chain.first(S), "another at a used position")));
    }

    @Test
    void theLongestChainThatExtendsTheKeptOneIsKeptAndALaggingSledChangesNothing() throws Exception {
        ClientChain c = new ClientChain(S);
        SignedJob j0 = at(c.tip(), "j0");
        c.keep(j0);
        // Another client of the session signed j1 and burnt the position after it.
        SignedJob j1 = at(j0.request().successor(), "j1");
        ClientChain.Held ahead = ClientChain.Held.of(List.of(j0, j1), List.of(j1.request().successor()));
        ClientChain.Held lagging = ClientChain.Held.of(List.of(j0), List.of());
        assertEquals(2, c.extend(List.of(lagging, ahead)));
        assertEquals(Chain.afterBurn(j1.request().successor()), c.tip());
        assertEquals(0, c.extend(List.of(lagging)), "nothing new");
    }

    @Test
    void twoRequestsAtOnePositionAreAForkAndNothingIsKept() {
        ClientChain c = new ClientChain(S);
        SignedJob mine = at(c.tip(), "mine");
        c.keep(mine);
        SignedJob theirs = at(Chain.first(S), "theirs");
        ClientChain.Fork f = assertThrows(ClientChain.Fork.class, () -> c.extend(List.of(ClientChain.Held.of(
                List.of(theirs), List.of()))));
        assertTrue(f.getMessage().contains(Chain.first(S).codephrase()), f.getMessage());
        // Two sleds that hold two different requests after the tip: a fork too.
        SignedJob a = at(mine.request().successor(), "a");
        SignedJob b = at(mine.request().successor(), "b");
        assertThrows(ClientChain.Fork.class, () -> c.extend(List.of(ClientChain.Held.of(List.of(a), List.of()),
                ClientChain.Held.of(List.of(b), List.of()))));
        assertEquals(1, c.entries().size(), "a fork keeps nothing");
    }

    @Test
    void aRefusedEntryIsForgottenAndItsPositionIsFreeAgain() {
        ClientChain c = new ClientChain(S);
        SignedJob j0 = at(c.tip(), "j0");
        c.keep(j0);
        c.forgetLast();
        assertEquals(Chain.first(S), c.tip());
        c.keep(at(c.tip(), "j0 again"));
        assertEquals(1, c.entries().size());
    }

    @Test
    void aChainReadBackIsCheckedAsWhenItWasKept() {
        SignedJob j0 = at(Chain.first(S), "j0");
        ClientChain back = ClientChain.of(S, List.of(new ClientChain.Entry.Request(j0),
                new ClientChain.Entry.Stop(j0.request().job())));
        assertEquals(j0.request().successor(), back.tip());
        SessionId other = SessionIds.compute("913-0000019:CLIENT", new byte[SessionIds.NONCE_BYTES], new byte[] {8});
        assertThrows(IllegalArgumentException.class, () -> ClientChain.of(other, List.of(
                new ClientChain.Entry.Request(j0))));
        assertThrows(IllegalArgumentException.class, () -> ClientChain.of(S, List.of(new ClientChain.Entry.Request(j0),
                new ClientChain.Entry.Request(at(Chain.first(S), "another")))));
        assertEquals(Set.of(), Set.copyOf(new ClientChain(S).entries()));
    }

    @Test
    void theChainKnowsItsSessionAndTheRequestKeptAtEachPosition() {
        ClientChain c = new ClientChain(S);
        assertEquals(S, c.session());
        SignedJob j0 = at(c.tip(), "j0");
        c.keep(j0);
        assertEquals(Optional.of(j0), c.request(j0.request().job()));
        assertEquals(Optional.empty(), c.request(j0.request().successor()));
    }

    @Test
    void aForgottenBurnFreesItsPositionUnlessTheSameBurnWasKeptBefore() {
        ClientChain c = new ClientChain(S);
        JobId p = c.tip();
        c.keepBurn(p);
        c.forgetLast();
        assertEquals(p, c.tip(), "the refused burn never left");
        c.keepBurn(p);
        c.keepBurn(p);
        c.forgetLast();
        assertEquals(Chain.afterBurn(p), c.tip(), "the burn kept before still holds");
        c.keepStop(p);
        c.forgetLast();
        assertEquals(Chain.afterBurn(p), c.tip(), "a stop places nothing, and forgetting it frees nothing");
        assertEquals(1, c.entries().size());
    }

    @Test
    void aKeptChainHoldsExactlyItsBoundAndExtendingStopsThere() throws ClientChain.Fork {
        ClientChain c = new ClientChain(S);
        JobId first = Chain.first(S);
        for (int i = 0; i < ClientChain.MAX_ENTRIES - 1; i++) {
            c.keepStop(first);
        }
        JobId b1 = Chain.afterBurn(first);
        JobId b2 = Chain.afterBurn(b1);
        assertEquals(1, c.extend(List.of(ClientChain.Held.of(List.of(), List.of(first, b1, b2)))),
                "one entry left: the first burn is kept, the rest waits for a new session");
        assertEquals(ClientChain.MAX_ENTRIES, c.entries().size());
        assertEquals(b1, c.tip());
        assertThrows(IllegalStateException.class, () -> c.keepStop(first));
        assertEquals(ClientChain.MAX_ENTRIES, c.entries().size());
    }

    @Test
    void aPositionTheRackForgotIsPassedToWhereTheLiveChainGoesOnAndKept() throws Exception {
        ClientChain c = new ClientChain(S);
        SignedJob j0 = at(c.tip(), "j0");
        c.keep(j0);
        JobId forgotten = j0.request().successor();
        // Another client's jobs from there on were settled and forgotten; the live chain goes on at j5.
        SignedJob j5 = at(Chain.afterBurn(forgotten), "j5 (a position past the forgotten ones)");
        ClientChain.Held restarted = new ClientChain.Held(Map.of(j5.request().job(), j5), Set.of(),
                Map.of(forgotten, j5.request().job()));
        assertEquals(2, c.extend(List.of(restarted)));
        assertEquals(new ClientChain.Entry.Jump(forgotten, j5.request().job()), c.entries().get(1));
        assertEquals(j5.request().successor(), c.tip(), "over the jump, then the live request");
        assertEquals(c.tip(), ClientChain.of(S, c.entries()).tip(), "a kept jump is read back");
    }

    @Test
    void aRequestSomeSledStillHoldsWinsOverAJumpAndTwoPlacesToGoOnAreAFork() throws Exception {
        ClientChain c = new ClientChain(S);
        JobId first = c.tip();
        SignedJob j0 = at(first, "j0");
        JobId elsewhere = Chain.afterBurn(j0.request().successor());
        ClientChain.Held holds = ClientChain.Held.of(List.of(j0), List.of());
        ClientChain.Held forgot = new ClientChain.Held(Map.of(), Set.of(), Map.of(first, elsewhere));
        assertEquals(1, c.extend(List.of(holds, forgot)));
        assertEquals(j0.request().successor(), c.tip(), "the request held, not the jump");
        ClientChain d = new ClientChain(S);
        ClientChain.Held other = new ClientChain.Held(Map.of(), Set.of(),
                Map.of(first, j0.request().successor()));
        assertThrows(ClientChain.Fork.class, () -> d.extend(List.of(forgot, other)));
        assertEquals(first, d.tip(), "nothing kept from a fork");
    }
}
