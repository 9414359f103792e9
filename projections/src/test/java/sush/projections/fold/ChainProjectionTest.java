package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Jobs;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.targets.Sled;

class ChainProjectionTest {
    private static final Sled ME = new Sled("p:me", 3);
    private static final SessionId S = SessionIds.compute("p:a", new byte[32], new byte[] {1});

    /** A chain of jobs: job i's id is the successor of job i-1; targets as given. */
    private static SignedJob[] chain(String... targets) {
        return Jobs.onTargets(Jobs::unsigned, S, targets);
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
        Random r = new Random(seed);
        for (int round = 0; round < 50; round++) {
            String[] targets = new String[1 + r.nextInt(40)];
            for (int i = 0; i < targets.length; i++) {
                targets[i] = r.nextInt(3) == 0 ? "7" : r.nextBoolean() ? "*" : "3";
            }
            SignedJob[] jobs = chain(targets);
            ChainProjection c = new ChainProjection(ME, S, Optional.empty());
            List<SignedJob> order = new ArrayList<>(Arrays.asList(jobs));
            Collections.shuffle(order, r);
            Set<SignedJob> arrived = new HashSet<>();
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
            List<SignedJob> expected = new ArrayList<>();
            for (SignedJob j : jobs) {
                if (targetsMe(j) && arrived.contains(j) && !c.precedesHead(j.request().job())) {
                    expected.add(j);
                }
            }
            expected.sort(Comparator.comparing(j -> HexFormat.of().formatHex(j.request().job().toBytes())));
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

    // ---- Issue 21: each test below kills mutants of ChainProjection that survived the suite. ----

    private static SignedJob at(JobId position, String target) {
        return Jobs.unsigned(new JobRequest(S, position, "echo " + position, target, false));
    }

    private static JobId pos(SignedJob j) {
        return j.request().job();
    }

    private static JobId next(SignedJob j) {
        return j.request().successor();
    }

    private static final String OTHER = "p:other";

    @Test
    void aBurnAtTheHeadReportsTheJobForThisSledThereOnceAndWalksOn() {
        SignedJob mine = at(Chain.first(S), "*");
        JobId after = Chain.afterBurn(pos(mine));
        SignedJob waiting = at(after, OTHER); // known before the burn: the head walks past it
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onJob(mine);
        c.onJob(waiting);
        assertEquals(List.of(), c.drainBurnt());
        c.onBurn(pos(mine));
        assertEquals(next(waiting), c.head(), "the head walked past the job for another sled after the burn");
        assertEquals(List.of(mine), c.drainBurnt());
        assertEquals(List.of(), c.drainBurnt(), "reported once");
        // A burnt position whose job is for another sled is nothing to report.
        ChainProjection d = new ChainProjection(ME, S, Optional.empty());
        SignedJob theirs = at(Chain.first(S), OTHER);
        d.onBurn(pos(theirs));
        d.onJob(theirs);
        assertEquals(List.of(), d.drainBurnt());
    }

    @Test
    void aBurnWaitingAheadIsWalkedOverAndRemembersItsJobForThisSled() {
        SignedJob first = at(Chain.first(S), OTHER);
        SignedJob mine = at(next(first), "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onBurn(pos(mine)); // ahead of the head: it waits there
        c.onJob(mine);
        assertEquals(Chain.first(S), c.head());
        c.onJob(first); // the head walks past the other sled's job onto the burn, and past it
        assertEquals(Chain.afterBurn(pos(mine)), c.head());
        assertEquals(List.of(mine), c.drainBurnt());
        // Both positions were walked past unstarted: a burn of the first moves the head back there.
        c.onBurn(pos(first));
        assertEquals(Chain.afterBurn(pos(first)), c.head());
        assertEquals(0, c.ignoredBurns());
    }

    @Test
    void aBurnBehindTheHeadOverPositionsBurntAtTheHeadMovesItBack() {
        SignedJob first = at(Chain.first(S), OTHER);
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onJob(first);
        // Three burns at the head in a row: more burns than jobs behind the head.
        JobId p = next(first);
        for (int i = 0; i < 3; i++) {
            c.onBurn(p);
            p = Chain.afterBurn(p);
        }
        assertEquals(p, c.head());
        assertTrue(c.precedesHead(next(first)), "a burnt position leads to the head");
        c.onBurn(pos(first));
        assertEquals(Chain.afterBurn(pos(first)), c.head(), "every position up to the head was walked past");
        assertEquals(0, c.ignoredBurns());
    }

    @Test
    void aBurnBehindStartedJobsIsIgnoredEvenPastTheLastStartedOne() {
        SignedJob[] jobs = chain("*", "*", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        for (SignedJob j : jobs) {
            c.onJob(j);
        }
        c.passHead(pos(jobs[0]), ChainProjection.Passed.RAN);
        c.passHead(pos(jobs[1]), ChainProjection.Passed.MAY_HAVE_RUN);
        JobId head = c.head();
        c.onBurn(pos(jobs[0]));
        assertEquals(head, c.head());
        assertEquals(1, c.ignoredBurns());
    }

    @Test
    void aJobPassedAsNeverRunIsWalkedPastAndTheHeadWalksOn() {
        SignedJob[] jobs = chain("*", OTHER, "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        for (SignedJob j : jobs) {
            c.onJob(j);
        }
        assertTrue(c.isHead(pos(jobs[0])));
        assertFalse(c.isHead(pos(jobs[1])));
        c.passHead(pos(jobs[0]), ChainProjection.Passed.NEVER_RAN);
        assertEquals(pos(jobs[2]), c.head(), "past the other sled's job at once");
        // Never run there: a burn of it may move the head back (it was walked past).
        c.onBurn(pos(jobs[0]));
        assertEquals(Chain.afterBurn(pos(jobs[0])), c.head());
    }

    @Test
    void theNextFreePositionFollowsJobsAndBurnsFromTheHead() {
        SignedJob[] jobs = chain("*", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        assertEquals(Chain.first(S), c.nextFree(), "nothing known: the head itself");
        c.onJob(jobs[0]);
        c.onJob(jobs[1]);
        assertEquals(next(jobs[1]), c.nextFree());
        c.onBurn(next(jobs[1]));
        assertEquals(Chain.afterBurn(next(jobs[1])), c.nextFree());
        assertEquals(Optional.of(jobs[1]), c.known(pos(jobs[1])));
        assertEquals(Optional.empty(), c.known(next(jobs[1])));
    }

    @Test
    void twoRequestsForOnePositionAheadKeepTheSmallerDigestInEitherOrder() {
        JobId ahead = next(at(Chain.first(S), "*"));
        SignedJob a = at(ahead, "*");
        SignedJob b = Jobs.unsigned(new JobRequest(S, ahead, "another command", "*", false));
        SignedJob smaller = Arrays.compareUnsigned(a.request().digest(), b.request().digest()) < 0 ? a : b;
        for (SignedJob[] order : new SignedJob[][] {{a, b}, {b, a}}) {
            ChainProjection c = new ChainProjection(ME, S, Optional.empty());
            c.onJob(order[0]);
            c.onJob(order[1]);
            assertEquals(Optional.of(smaller), c.known(ahead));
        }
        // At the head, what stood there first stays (it may have run).
        SignedJob h1 = at(Chain.first(S), "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onJob(h1);
        SignedJob other = Jobs.unsigned(new JobRequest(S, Chain.first(S), "zzz", "*", false));
        c.onJob(other);
        assertEquals(Optional.of(h1), c.known(Chain.first(S)), "the job at the head is not replaced");
    }

    @Test
    void theFingerprintTellsStatesApart() {
        SignedJob[] jobs = chain("*", "*");
        ChainProjection a = new ChainProjection(ME, S, Optional.empty());
        ChainProjection b = new ChainProjection(ME, S, Optional.empty());
        assertEquals(a.fingerprint(), b.fingerprint());
        b.onJob(jobs[1]); // a job known, the head unchanged
        assertFalse(a.fingerprint().equals(b.fingerprint()), "jobs are part of the state");
        a.onJob(jobs[1]);
        assertEquals(a.fingerprint(), b.fingerprint());
        b.onBurn(next(jobs[1]));
        assertFalse(a.fingerprint().equals(b.fingerprint()), "burns are part of the state");
    }

    @Test
    void pastItsMemoryBoundAChainRefusesJobsAndBurnsAndCountsWhatItDropped() {
        int n = ChainProjection.MAX_POSITIONS;
        String[] targets = new String[n];
        Arrays.fill(targets, OTHER);
        SignedJob[] jobs = chain(targets);
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        for (SignedJob j : jobs) {
            c.onJob(j);
        }
        assertEquals(next(jobs[n - 1]), c.head(), "every job for another sled walked past");
        assertEquals(0, c.overflow(), "exactly the bound: nothing dropped");
        c.onJob(at(c.head(), "*"));
        assertEquals(1, c.overflow(), "one job past the bound is refused");
        assertEquals(Optional.empty(), c.atHead());
        c.onBurn(c.head()); // the head leaves one more position than walked can remember
        assertEquals(2, c.overflow());
        assertEquals(0, c.ignoredBurns());
        // Burns up to their own bound.
        ChainProjection d = new ChainProjection(ME, S, Optional.empty());
        JobId p = next(at(Chain.first(S), "*"));
        for (int i = 0; i < n; i++) {
            d.onBurn(p); // ahead of the head: each waits there
            p = Chain.afterBurn(p);
        }
        assertEquals(0, d.overflow());
        d.onBurn(p);
        assertEquals(1, d.overflow());
        assertEquals(1, d.ignoredBurns());
    }

    @Test
    void targetAnswersAreRememberedAndStayRight() {
        TargetsMe t = new TargetsMe(ME);
        assertTrue(t.test("*"));
        assertTrue(t.test("*"), "from memory");
        assertFalse(t.test(OTHER));
        assertFalse(t.test(OTHER), "from memory");
        assertEquals(2, t.remembered());
    }

    /** Issue 39: the skeleton's jump moves the head only from an empty head, forward, and starts nothing on the way. */
    @Test
    void theHeadJumpsOnlyFromAPositionItHoldsNothingOf() {
        SignedJob[] jobs = chain("*", "*", "*");
        ChainProjection c = new ChainProjection(ME, S, Optional.empty());
        c.onJob(jobs[0]);
        assertEquals(false, c.jump(jobs[0].request().job(), jobs[2].request().job()), "a job is known at the head");
        c.passHead(jobs[0].request().job(), ChainProjection.Passed.RAN);
        assertEquals(jobs[0].request().successor(), c.resumePoint(), "the successor of the last job started");
        assertEquals(false, c.jump(jobs[2].request().job(), jobs[2].request().successor()), "not from the head");
        assertEquals(false, c.jump(c.head(), c.head()), "nowhere to go");
        assertTrue(c.jump(c.head(), jobs[2].request().job()));
        assertEquals(jobs[2].request().job(), c.head());
        assertEquals(Optional.empty(), c.atHead(), "job 2 is not known yet");
        c.onJob(jobs[2]);
        assertEquals(Optional.of(jobs[2]), c.atHead());
        assertEquals(jobs[0].request().successor(), c.resumePoint(), "a jump starts nothing");
        assertTrue(c.holds(jobs[0].request().job()) && !c.holds(jobs[1].request().job()));
        ChainProjection fresh = new ChainProjection(ME, S, Optional.empty());
        assertEquals(Chain.first(S), fresh.resumePoint(), "nothing started: the session's first position");
    }
}
