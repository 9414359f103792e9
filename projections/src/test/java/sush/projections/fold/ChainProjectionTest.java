package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.SignedJob;
import sush.projections.targets.Sled;

class ChainProjectionTest {
    private static final Sled ME = new Sled("p:me", 3);
    private static final SessionId S = SessionIds.compute("p:a", new byte[32], new byte[] {1});

    /** A chain of jobs: job i's id is the successor of job i-1; targets as given. */
    private static SignedJob[] chain(String... targets) {
        return Chains.of(S, targets);
    }

    @Test
    void jobsStartOnlyAtTheHeadInChainOrder() {
        SignedJob[] jobs = chain("*", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onJob(jobs[1]);
        assertEquals(Optional.empty(), c.atHead(), "a hole holds later jobs");
        c.onJob(jobs[0]);
        assertEquals(Optional.of(jobs[0]), c.atHead());
        c.passHead(jobs[0].request().job(), ChainProjection.Passed.RAN);
        assertEquals(Optional.of(jobs[1]), c.atHead());
    }

    @Test
    void jobsForOtherSledsAdvanceTheChain() {
        SignedJob[] jobs = chain("5", "p:other", "3");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        for (SignedJob j : jobs) {
            c.onJob(j);
        }
        assertEquals(Optional.of(jobs[2]), c.atHead());
        assertTrue(c.precedesHead(jobs[0].request().job()));
        assertTrue(c.precedesHead(jobs[1].request().job()));
    }

    @Test
    void anUnparsableTargetTargetsNoOneAndTheChainStillAdvances() {
        SignedJob[] jobs = chain("not,,valid", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onJob(jobs[0]);
        c.onJob(jobs[1]);
        assertEquals(Optional.of(jobs[1]), c.atHead());
    }

    @Test
    void aBurnAtTheHeadMovesPastIt() {
        SignedJob[] jobs = chain("*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onBurn(Chain.first(S));
        assertEquals(Chain.afterBurn(Chain.first(S)), c.head());
        c.onJob(jobs[0]);
        assertEquals(Optional.empty(), c.atHead(), "the burnt position's job never reaches the head");
        assertTrue(c.precedesHead(jobs[0].request().job()));
    }

    @Test
    void aBurnNeverMovesTheHeadBackOverAStartedPosition() {
        SignedJob[] jobs = chain("*", "*", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        for (SignedJob j : jobs) {
            c.onJob(j);
        }
        c.passHead(jobs[0].request().job(), ChainProjection.Passed.RAN);
        c.passHead(jobs[1].request().job(), ChainProjection.Passed.RAN);
        JobId head = c.head();
        c.onBurn(jobs[0].request().job());
        assertEquals(head, c.head(), "a burn behind the head is ignored");
        assertEquals(1, c.ignoredBurns());
        c.onBurn(jobs[1].request().job());
        assertEquals(Chain.afterBurn(jobs[1].request().job()), c.head(),
                "burning the last started job while the head is its successor follows the rack's branch");
    }

    @Test
    void resumptionStartsAtTheStoredSuccessor() {
        SignedJob[] jobs = chain("*", "*");
        ChainProjection c = new ChainProjection(ME, S,
                Optional.of(new JobId[] {jobs[0].request().job(), jobs[1].request().job()}));
        c.onJob(jobs[0]);
        c.onJob(jobs[1]);
        assertEquals(Optional.of(jobs[1]), c.atHead());
        assertTrue(c.precedesHead(jobs[0].request().job()), "the first job is behind a resumed head");
        assertFalse(c.precedesHead(jobs[1].request().job()));
    }

    @Test
    void burningTheCommittedJobAfterResumptionFollowsTheRacksBranch() {
        SignedJob[] jobs = chain("*", "*");
        JobId committed = jobs[0].request().job();
        ChainProjection c = new ChainProjection(ME, S, Optional.of(new JobId[] {committed, jobs[1].request().job()}));
        c.onBurn(committed);
        assertEquals(Chain.afterBurn(committed), c.head());
    }

    @Test
    void passingAJobThatIsNoLongerAtTheHeadIsRefused() {
        SignedJob[] jobs = chain("*", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onJob(jobs[0]);
        c.onBurn(jobs[0].request().job());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> c.passHead(jobs[0].request().job(), ChainProjection.Passed.RAN));
    }

    @Test
    void aBurnRacingAJobForOtherSledsEndsOnTheSameHeadInEitherOrder() {
        SignedJob[] jobs = chain("9");
        JobId position = Chain.first(S);
        ChainProjection jobFirst = new ChainProjection(ME, S, Optional.empty());
        jobFirst.onJob(jobs[0]);
        jobFirst.onBurn(position);
        ChainProjection burnFirst = new ChainProjection(ME, S, Optional.empty());
        burnFirst.onBurn(position);
        burnFirst.onJob(jobs[0]);
        assertEquals(Chain.afterBurn(position), jobFirst.head());
        assertEquals(burnFirst.head(), jobFirst.head());
    }

    @Test
    void aBurnBehindAPassedJobIsIgnored() {
        SignedJob[] jobs = chain("9", "*", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        for (SignedJob j : jobs) {
            c.onJob(j);
        }
        c.passHead(jobs[1].request().job(), ChainProjection.Passed.RAN);
        JobId head = c.head();
        c.onBurn(jobs[0].request().job());
        assertEquals(head, c.head(), "moving would skip back over the job this sled passed");
    }

    /**
     * {@code queuedForMe} resolves every position once; it must name exactly the targeted jobs
     * that {@code precedesHead} says are not behind the head, whatever the holes, burns, passes
     * and arrival order (seeded random chains).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void queuedJobsAreTheTargetedOnesNotBehindTheHead(long seed) {
        java.util.Random r = new java.util.Random(seed);
        for (int round = 0; round < 50; round++) {
            String[] targets = new String[1 + r.nextInt(40)];
            for (int i = 0; i < targets.length; i++) {
                targets[i] = r.nextInt(3) == 0 ? "7" : r.nextBoolean() ? "*" : "3";
            }
            SignedJob[] jobs = chain(targets);
            ChainProjection c = new ChainProjection(ME, S, Optional.empty());
            java.util.List<SignedJob> order = new java.util.ArrayList<>(java.util.Arrays.asList(jobs));
            java.util.Collections.shuffle(order, r);
            java.util.Set<SignedJob> arrived = new java.util.HashSet<>();
            for (SignedJob j : order) {
                if (r.nextInt(8) != 0) { // some never arrive: holes
                    c.onJob(j);
                    arrived.add(j);
                }
                if (r.nextInt(6) == 0) {
                    c.onBurn(jobs[r.nextInt(jobs.length)].request().job());
                }
                if (r.nextBoolean() && c.atHead().isPresent()) {
                    c.passHead(c.atHead().get().request().job(), ChainProjection.Passed.RAN);
                }
            }
            java.util.List<SignedJob> expected = new java.util.ArrayList<>();
            for (SignedJob j : jobs) {
                if (targetsMe(j) && arrived.contains(j) && !c.precedesHead(j.request().job())) {
                    expected.add(j);
                }
            }
            expected.sort(java.util.Comparator.comparing(j -> java.util.HexFormat.of().formatHex(j.request().job().toBytes())));
            assertEquals(expected, c.queuedForMe(), "seed " + seed + " round " + round);
        }
    }

    private static boolean targetsMe(SignedJob j) {
        return !j.request().target().equals("7");
    }

    /** Target answers are remembered per text up to a bound; past it they stay right. */
    @Test
    void targetAnswersStayRightPastTheirMemoryBound() {
        TargetsMe targets = new TargetsMe(ME);
        for (int i = 0; i < TargetsMe.MAX_TEXTS * 2 + 5; i++) {
            String text = (i % 32) + ",913-0000019:OTHER" + i;
            assertEquals(i % 32 == ME.cubby(), targets.test(text), text);
            assertEquals(i % 32 == ME.cubby(), targets.test(text), "remembered: " + text);
            assertTrue(targets.remembered() <= TargetsMe.MAX_TEXTS);
        }
        assertTrue(targets.test("*"));
        assertFalse(targets.test("3,,4"), "unparsable: no one");
        assertFalse(targets.test("40"), "a cubby out of range: no one");
    }
}
