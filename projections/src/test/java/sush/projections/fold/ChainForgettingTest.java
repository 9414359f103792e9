package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Jobs;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.SignedJob;
import sush.projections.targets.Sled;

/**
 * D-058: the active session's chain forgets the positions the rack settled behind its head, so
 * that its memory follows the session's live work and a session is no longer stopped at
 * {@link ChainProjection#MAX_POSITIONS} positions.
 */
class ChainForgettingTest {
    private static final Sled ME = new Sled("p:me", 3);
    private static final SessionId S = SessionIds.compute("p:a", new byte[32], new byte[] {1});

    private static SignedJob[] chain(int n, String target) {
        String[] targets = new String[n];
        Arrays.fill(targets, target);
        return Jobs.onTargets(Jobs::unsigned, S, targets);
    }

    private static ChainProjection bounded(int maxPositions) {
        return new ChainProjection(new TargetsMe(ME), S, Optional.empty(), maxPositions);
    }

    private static JobId at(SignedJob j) {
        return j.request().job();
    }

    @Test
    void aSessionLongerThanTheChainsBoundRunsWhenTheRackSettlesBehindTheHead() {
        SignedJob[] jobs = chain(100, "*");
        ChainProjection kept = bounded(8);
        ChainProjection settling = bounded(8);
        for (SignedJob j : jobs) {
            for (ChainProjection c : new ChainProjection[] {kept, settling}) {
                c.onJob(j);
                if (c.atHead().isPresent()) {
                    c.passHead(at(j), ChainProjection.Passed.RAN);
                }
            }
            // The rack settles each job once every sled passed it: here, once this one did.
            assertTrue(settling.settle(at(j)), "a settled position behind the head is forgotten");
        }
        assertTrue(kept.overflow() > 0, "without forgetting the chain's bound is reached");
        assertEquals(0, settling.overflow(), "forgetting, the chain never reaches its bound");
        assertEquals(0, settling.remembered());
        assertEquals(jobs[99].request().successor(), settling.head());
    }

    @Test
    void onlyPositionsBehindTheHeadWithNothingHeldBeforeThemAreForgotten() {
        SignedJob[] jobs = chain(4, "p:other");
        ChainProjection c = bounded(64);
        c.onJob(jobs[0]);
        c.onJob(jobs[1]);
        c.onJob(jobs[3]); // a hole at job 2: job 3 is ahead of the head
        assertEquals(at(jobs[2]), c.head());
        assertFalse(c.settle(at(jobs[3])), "ahead of the head: kept");
        assertFalse(c.settle(at(jobs[2])), "the head itself: kept");
        assertFalse(c.settle(at(jobs[1])), "job 0, still held, leads to it: kept");
        assertTrue(c.settle(at(jobs[0])));
        assertTrue(c.settle(at(jobs[1])));
        assertTrue(c.known(at(jobs[0])).isEmpty());
        assertTrue(c.known(at(jobs[3])).isPresent());
        c.onJob(jobs[2]);
        assertEquals(jobs[3].request().successor(), c.head(), "what is held still walks");
    }

    @Test
    void aRequestReSentAtARecentlyForgottenPositionStillPrecedesTheHead() {
        SignedJob[] jobs = chain(3, "*");
        ChainProjection c = bounded(64);
        for (SignedJob j : jobs) {
            c.onJob(j);
            c.passHead(at(j), ChainProjection.Passed.RAN);
        }
        assertTrue(c.settle(at(jobs[0])));
        assertTrue(c.settle(at(jobs[1])));
        c.onJob(jobs[1]); // re-sent by a client
        assertTrue(c.precedesHead(at(jobs[1])), "reported already handled, never queued");
        assertTrue(c.queuedForMe().isEmpty());
        assertEquals(jobs[2].request().successor(), c.head());
    }

    @Test
    void pastItsBoundTheOldestForgottenPositionIsOneTheChainCannotPlace() {
        int n = ChainProjection.MAX_FORGOTTEN + 3;
        SignedJob[] jobs = chain(n, "p:other");
        ChainProjection c = bounded(n + 8);
        for (SignedJob j : jobs) {
            c.onJob(j);
        }
        for (SignedJob j : jobs) {
            assertTrue(c.settle(at(j)));
        }
        // The oldest three fell out: re-sent, job 0 is the session's first position (it precedes
        // any head past it), job 1 (whose next one fell out too) cannot be placed, as after a
        // restart; job 2 leads to a position still recognized, and so does the newest.
        assertTrue(c.precedesHead(at(jobs[0])));
        c.onJob(jobs[1]);
        assertFalse(c.precedesHead(at(jobs[1])));
        c.onJob(jobs[2]);
        assertTrue(c.precedesHead(at(jobs[2])));
        c.onJob(jobs[n - 1]);
        assertTrue(c.precedesHead(at(jobs[n - 1])));
    }

    @Test
    void aSettledBurnBehindTheHeadIsForgottenToo() {
        ChainProjection c = bounded(64);
        JobId first = Chain.first(S);
        c.onBurn(first);
        assertEquals(Chain.afterBurn(first), c.head());
        assertFalse(c.settle(Chain.afterBurn(first)), "the head");
        assertTrue(c.settle(first));
        assertTrue(c.heldBurns().isEmpty());
        assertFalse(c.holds(first));
        assertEquals(0, c.remembered());
    }
}
