package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.message.Message.SessionStart;
import sush.projections.message.Message.SessionStop;

class SessionProjectionTest {
    private static final Id[] PARTIES = Id.ONE.fork(3).toArray(new Id[0]);

    private static SessionStart start(int n) {
        byte[] nonce = new byte[SessionIds.NONCE_BYTES];
        nonce[0] = (byte) n;
        byte[] client = {(byte) n};
        return new SessionStart(SessionIds.compute("p:s" + n, nonce, client), "p:s" + n, nonce, client, "op" + n);
    }

    @Test
    void aLaterStartSupersedesTheActiveSession() {
        SessionProjection fold = new SessionProjection();
        Version a = Version.ZERO.tick(PARTIES[0]);
        Version b = a.tick(PARTIES[1]);
        fold.onStart(a, start(1));
        List<SessionProjection.Change> changes = fold.onStart(b, start(2));
        assertEquals(start(2).session(), fold.active().orElseThrow().id());
        assertTrue(changes.contains(new SessionProjection.Change.Ended(fold.session(start(1).session()).orElseThrow(),
                SessionProjection.Ending.SUPERSEDED)));
    }

    @Test
    void concurrentStartsAnnihilateEachOther() {
        SessionProjection fold = new SessionProjection();
        fold.onStart(Version.ZERO.tick(PARTIES[0]), start(1));
        List<SessionProjection.Change> changes = fold.onStart(Version.ZERO.tick(PARTIES[1]), start(2));
        assertEquals(Optional.empty(), fold.active());
        assertTrue(changes.stream().anyMatch(c -> c instanceof SessionProjection.Change.Concurrent));
    }

    @Test
    void staleDuplicateAndUnactivatedStartsAreAbsorbed() {
        SessionProjection fold = new SessionProjection();
        Version a = Version.ZERO.tick(PARTIES[0]);
        Version b = a.tick(PARTIES[1]);
        fold.onStart(b, start(2));
        assertEquals(List.of(), fold.onStart(b, start(2)), "duplicate");
        assertEquals(List.of(), fold.onStart(a, start(1)), "stale: dominated by the join");
        assertEquals(start(2).session(), fold.active().orElseThrow().id());
    }

    @Test
    void onlyTheStarterStopsASession() {
        SessionProjection fold = new SessionProjection();
        fold.onStart(Version.ZERO.tick(PARTIES[0]), start(1));
        assertEquals(List.of(), fold.onStop(new SessionStop(start(1).session(), "someone-else")));
        assertTrue(fold.active().isPresent());
        assertEquals(1, fold.onStop(new SessionStop(start(1).session(), "op1")).size());
        assertEquals(Optional.empty(), fold.active());
        assertEquals(1, fold.ignoredStops());
    }

    @Test
    void aStartWhoseIdDoesNotMatchItsFieldsIsCountedAndIgnored() {
        SessionProjection fold = new SessionProjection();
        SessionStart honest = start(1);
        SessionStart forged = new SessionStart(start(2).session(), honest.acceptor(), honest.sledNonce(),
                honest.clientNonce(), honest.starter());
        assertEquals(List.of(), fold.onStart(Version.ZERO.tick(PARTIES[0]), forged));
        assertEquals(1, fold.forgedStarts());
        assertEquals(Optional.empty(), fold.active());
    }

    /** Every causal delivery order of three starts gives the same active session. */
    @Test
    void theFoldIsTheSameInEveryCausalOrderOfThreeStarts() {
        Set<String> patterns = new HashSet<>();
        for (long seed = 0; seed < 400; seed++) {
            Version[] v = threeStarts(new Random(seed));
            patterns.add(pattern(v));
            Set<Optional<SessionId>> outcomes = new HashSet<>();
            for (int[] order : permutations()) {
                if (!causal(order, v)) {
                    continue;
                }
                SessionProjection fold = new SessionProjection();
                for (int i : order) {
                    fold.onStart(v[i], start(i));
                }
                outcomes.add(fold.active().map(SessionProjection.Session::id));
            }
            assertEquals(1, outcomes.size(), "seed " + seed + " " + pattern(v) + ": " + outcomes);
        }
        assertTrue(patterns.size() >= 6, "before/after/concurrent mixes covered: " + patterns);
        assertFalse(patterns.isEmpty());
    }

    /** Three session starts from a random history of three parties that tick and gossip. */
    private static Version[] threeStarts(Random random) {
        Version[] parties = {Version.ZERO, Version.ZERO, Version.ZERO};
        Version[] starts = new Version[3];
        List<Integer> pending = new ArrayList<>(List.of(0, 1, 2));
        while (!pending.isEmpty()) {
            int p = random.nextInt(3);
            int op = random.nextInt(3);
            if (op == 0) {
                int q = random.nextInt(3);
                parties[p] = parties[p].join(parties[q]);
            } else if (op == 1) {
                parties[p] = parties[p].tick(PARTIES[p]);
            } else {
                int s = pending.remove(random.nextInt(pending.size()));
                parties[p] = parties[p].tick(PARTIES[p]);
                starts[s] = parties[p];
            }
        }
        return starts;
    }

    private static String pattern(Version[] v) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            for (int j = i + 1; j < 3; j++) {
                b.append(v[i].lessThan(v[j]) ? '<' : v[j].lessThan(v[i]) ? '>' : v[i].equals(v[j]) ? '=' : '|');
            }
        }
        return b.toString();
    }

    private static boolean causal(int[] order, Version[] v) {
        for (int a = 0; a < 3; a++) {
            for (int b = a + 1; b < 3; b++) {
                if (v[order[b]].lessThan(v[order[a]])) {
                    return false;
                }
            }
        }
        return true;
    }

    private static List<int[]> permutations() {
        return List.of(new int[] {0, 1, 2}, new int[] {0, 2, 1}, new int[] {1, 0, 2}, new int[] {1, 2, 0},
                new int[] {2, 0, 1}, new int[] {2, 1, 0});
    }

    @Test
    void aRepeatedSessionIdIsNeverActivatedAgainAndTheFoldStaysOrderIndependent() {
        Version v1 = Version.ZERO.tick(PARTIES[0]);
        Version v2 = v1.tick(PARTIES[1]);
        Version t = v1.tick(PARTIES[2]);
        SessionProjection a = new SessionProjection();
        a.onStart(v1, start(1));
        a.onStart(v2, start(1));
        a.onStart(t, start(3));
        SessionProjection b = new SessionProjection();
        b.onStart(v1, start(1));
        b.onStart(t, start(3));
        b.onStart(v2, start(1));
        assertEquals(a.active(), b.active());
        assertEquals(Optional.empty(), a.active(), "the copy ended the session and reactivated nothing");
    }

    @Test
    void aReplayedStartIsAbsorbedWhileOthersCameAfterIt() {
        SessionProjection fold = new SessionProjection();
        Version v = Version.ZERO;
        for (int n = 1; n <= 5; n++) {
            v = v.tick(PARTIES[0]);
            fold.onStart(v, start(n));
        }
        assertEquals(start(5).session(), fold.active().orElseThrow().id());
        assertTrue(fold.startsJoin().equals(v), "the join of the valid starts");
        // The first start again, as a later message (a replay): its id was accepted once and is
        // never activated again (it still counts as a start: it supersedes the active one).
        fold.onStart(v.tick(PARTIES[1]), start(1));
        assertFalse(fold.active().map(a -> a.id().equals(start(1).session())).orElse(false));
    }

    @Test
    void pastItsBoundTheOldestSessionIsForgottenButNeverTheActiveOne() {
        SessionProjection fold = new SessionProjection();
        Version v = Version.ZERO;
        int n = SessionProjection.MAX_SESSIONS + 1;
        for (int i = 0; i < n; i++) {
            v = v.tick(PARTIES[0]);
            fold.onStart(v, bigStart(i));
        }
        assertEquals(Optional.empty(), fold.session(bigStart(0).session()), "the oldest is forgotten past the bound");
        assertTrue(fold.session(bigStart(1).session()).isPresent(), "exactly the bound is kept");
        assertEquals(bigStart(n - 1).session(), fold.active().orElseThrow().id());
        // Forgotten as a session, still remembered as an id: a replay of it is never activated.
        fold.onStart(v.tick(PARTIES[1]), bigStart(0));
        assertFalse(fold.active().map(a -> a.id().equals(bigStart(0).session())).orElse(false));
    }

    private static SessionStart bigStart(int n) {
        byte[] nonce = new byte[SessionIds.NONCE_BYTES];
        nonce[0] = (byte) n;
        nonce[1] = (byte) (n >>> 8);
        byte[] client = {(byte) n, (byte) (n >>> 8)};
        return new SessionStart(SessionIds.compute("p:b", nonce, client), "p:b", nonce, client, "op");
    }

    // ---- Issue 37: the test below kills mutants of SessionProjection that survived the suite. ----

    @Test
    void pastItsBoundAnEndedOldestSessionIsForgottenAndCountedAnActiveOneKept() {
        SessionProjection fold = new SessionProjection(1);
        Version v1 = Version.ZERO.tick(PARTIES[0]);
        Version v2 = v1.tick(PARTIES[0]);
        fold.onStart(v1, start(1));
        fold.onStop(new SessionStop(start(1).session(), "op1"));
        assertEquals(Optional.empty(), fold.active());
        assertEquals(0, fold.evicted());
        fold.onStart(v2, start(2)); // no session active while it is remembered: the oldest goes
        assertEquals(Optional.empty(), fold.session(start(1).session()));
        assertEquals(1, fold.evicted());
        assertEquals(start(2).session(), fold.active().orElseThrow().id());
        fold.onStart(v1, start(3)); // dominated: absorbed, remembered; the oldest is the active one
        assertTrue(fold.session(start(2).session()).isPresent(), "the active session is never forgotten");
        assertTrue(fold.session(start(3).session()).isPresent());
        assertEquals(start(2).session(), fold.active().orElseThrow().id());
        assertEquals(1, fold.evicted());
    }
}
