package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Jobs;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedJob;
import sush.projections.targets.Sled;

/**
 * What a {@link ChainProjection} tells about the chain it holds (its links walked back and
 * forward, the requests and burns it holds, what stands ahead of the head), what it answers a
 * request with, its copy, and its bounds met exactly (issue 37: mutants that survived the suite).
 */
class ChainProjectionLinksTest {
    private static final Sled ME = new Sled("p:me", 3);
    private static final SessionId S = SessionIds.compute("p:a", new byte[32], new byte[] {1});
    private static final String OTHER = "p:other";
    /** A job id on no chain of {@link #S}. */
    private static final JobId ELSEWHERE = new JobId(new byte[11]);

    private static SignedJob at(JobId position, String target, String command) {
        JobRequest r = new JobRequest(S, position, command, target, false);
        return new SignedJob(r, new KeyId(new byte[11]), SignatureAlgorithm.ED25519, new byte[64]);
    }

    private static SignedJob at(JobId position, String target) {
        return at(position, target, "echo " + position);
    }

    private static JobId pos(SignedJob j) {
        return j.request().job();
    }

    private static JobId next(SignedJob j) {
        return j.request().successor();
    }

    private static ChainProjection fresh() {
        return new ChainProjection(ME, S, Optional.empty());
    }

    private static ChainProjection bounded(int maxPositions, Optional<JobId[]> committed) {
        return new ChainProjection(new TargetsMe(ME), S, committed, maxPositions);
    }

    /** Two jobs for this sled from the first position, and a burn waiting after them. */
    private record Held(ChainProjection chain, SignedJob[] jobs, JobId burnt) {
    }

    private static Held twoJobsAndABurn() {
        SignedJob[] jobs = Jobs.onTargets(Jobs::unsigned, S, "*", "*");
        ChainProjection c = fresh();
        c.onJob(jobs[0]);
        c.onJob(jobs[1]);
        c.onBurn(next(jobs[1])); // ahead of the head: it waits there
        return new Held(c, jobs, next(jobs[1]));
    }

    @Test
    void previousWalksBackOverJobsAndBurnsAndKnowsNothingBeforeAnUnknownPosition() {
        Held h = twoJobsAndABurn();
        ChainProjection c = h.chain();
        assertEquals(Optional.of(pos(h.jobs()[0])), c.previous(pos(h.jobs()[1])), "the job whose successor it is");
        assertEquals(Optional.of(pos(h.jobs()[1])), c.previous(h.burnt()));
        assertEquals(Optional.of(h.burnt()), c.previous(Chain.afterBurn(h.burnt())), "the burnt position it comes after");
        assertEquals(Optional.empty(), c.previous(pos(h.jobs()[0])), "nothing before the first position");
        assertEquals(Optional.empty(), c.previous(ELSEWHERE));
    }

    @Test
    void theHeldRequestsAndBurnsAreEveryOneGiven() {
        Held h = twoJobsAndABurn();
        ChainProjection c = h.chain();
        assertEquals(Set.of(h.jobs()[0], h.jobs()[1]), Set.copyOf(c.heldRequests()));
        assertEquals(2, c.heldRequests().size());
        assertEquals(Set.of(h.burnt()), c.heldBurns());
        assertEquals(List.of(), fresh().heldRequests());
        assertEquals(Set.of(), fresh().heldBurns());
    }

    @Test
    void fromListsTheLinksInChainOrderUpToMaxAndStopsAtAHole() {
        Held h = twoJobsAndABurn();
        ChainProjection c = h.chain();
        SignedJob[] jobs = h.jobs();
        ChainProjection.Link first = new ChainProjection.Link(pos(jobs[0]), Optional.of(jobs[0]));
        ChainProjection.Link second = new ChainProjection.Link(pos(jobs[1]), Optional.of(jobs[1]));
        ChainProjection.Link burn = new ChainProjection.Link(h.burnt(), Optional.empty());
        assertEquals(List.of(first, second, burn), c.from(pos(jobs[0]), 10), "a hole after the burn ends it");
        assertEquals(List.of(first, second), c.from(pos(jobs[0]), 2), "at most max links");
        assertEquals(List.of(second), c.from(pos(jobs[1]), 1));
        assertEquals(List.of(burn), c.from(h.burnt(), 5));
        assertEquals(List.of(), c.from(pos(jobs[0]), 0));
        assertEquals(List.of(), c.from(ELSEWHERE, 5), "nothing held there");
    }

    @Test
    void fromShowsABurnBehindTheHeadAsABurnOfItsPosition() {
        SignedJob[] jobs = Jobs.onTargets(Jobs::unsigned, S, "*", "*");
        ChainProjection c = fresh();
        c.onJob(jobs[0]);
        c.onJob(jobs[1]);
        c.passHead(pos(jobs[0]), ChainProjection.Passed.RAN);
        c.passHead(pos(jobs[1]), ChainProjection.Passed.RAN);
        c.onBurn(pos(jobs[0])); // behind the head: ignored, but still a link of the chain
        assertEquals(1, c.ignoredBurns());
        assertEquals(List.of(new ChainProjection.Link(pos(jobs[0]), Optional.empty())), c.from(pos(jobs[0]), 5),
                "the burn comes before the request there; nothing is known after the burn");
        assertEquals(Set.of(pos(jobs[0])), c.heldBurns());
        assertEquals(Optional.of(pos(jobs[0])), c.previous(Chain.afterBurn(pos(jobs[0]))));
    }

    @Test
    void aheadOfTheHeadIsWhatTheHeadReachesForward() {
        ChainProjection empty = fresh();
        assertTrue(empty.aheadOfHead(Chain.first(S)), "the head itself, nothing known");
        assertFalse(empty.aheadOfHead(ELSEWHERE));

        SignedJob[] jobs = Jobs.onTargets(Jobs::unsigned, S, "*", "*");
        ChainProjection c = fresh();
        c.onJob(jobs[0]);
        c.onJob(jobs[1]);
        assertTrue(c.aheadOfHead(pos(jobs[0])));
        assertTrue(c.aheadOfHead(pos(jobs[1])));
        assertTrue(c.aheadOfHead(next(jobs[1])), "the first free position after the known jobs");
        assertFalse(c.aheadOfHead(Chain.afterBurn(next(jobs[1]))), "beyond a hole");
        c.passHead(pos(jobs[0]), ChainProjection.Passed.RAN);
        assertFalse(c.aheadOfHead(pos(jobs[0])), "behind the head");
        assertTrue(c.aheadOfHead(pos(jobs[1])));

        // More burns than jobs: the walk forward still starts at the head and passes the burn.
        ChainProjection burnt = fresh();
        JobId waiting = Chain.afterBurn(Chain.first(S));
        burnt.onBurn(waiting);
        assertTrue(burnt.aheadOfHead(Chain.first(S)));
        assertFalse(burnt.aheadOfHead(waiting), "a hole at the head holds the burn after it");
    }

    @Test
    void aRequestIsAnsweredHeldConflictingOrFull() {
        ChainProjection.Taken held = new ChainProjection.Taken.Held();
        SignedJob head = at(Chain.first(S), "*", "first");
        SignedJob headRival = at(Chain.first(S), "*", "rival");
        ChainProjection c = bounded(2, Optional.empty());
        assertEquals(held, c.onJob(head));
        assertEquals(held, c.onJob(head), "the very request again");
        assertEquals(new ChainProjection.Taken.Conflicting(new ChainProjection.Conflict(headRival, head)),
                c.onJob(headRival), "at the head the request there stays");

        JobId ahead = next(head);
        SignedJob a = at(ahead, "*", "a");
        SignedJob b = at(ahead, "*", "b");
        boolean aSmaller = Arrays.compareUnsigned(a.request().digest(), b.request().digest()) < 0;
        SignedJob smaller = aSmaller ? a : b;
        SignedJob larger = aSmaller ? b : a;
        assertEquals(held, c.onJob(larger));
        assertEquals(new ChainProjection.Taken.Conflicting(new ChainProjection.Conflict(larger, smaller)),
                c.onJob(smaller), "ahead the smaller digest replaces the larger");
        assertEquals(new ChainProjection.Taken.Conflicting(new ChainProjection.Conflict(larger, smaller)),
                c.onJob(larger), "and keeps its place");
        assertEquals(Optional.of(pos(head)), c.previous(ahead));
        assertEquals(new ChainProjection.Taken.Full(), c.onJob(at(next(smaller), "*")), "two positions: full");
        assertEquals(1, c.overflow());
    }

    @Test
    void aCopyKnowsTheSameLinksBackwards() {
        Held h = twoJobsAndABurn();
        ChainProjection copy = new ChainProjection(h.chain(), new TargetsMe(ME));
        assertEquals(Optional.of(pos(h.jobs()[0])), copy.previous(pos(h.jobs()[1])));
        assertEquals(Optional.of(h.burnt()), copy.previous(Chain.afterBurn(h.burnt())));
        assertEquals(h.chain().fingerprint(), copy.fingerprint());
    }

    /**
     * Burns behind a resumed head are remembered up to the chain's bound, and no further: the
     * first position and three known jobs lead to the head, in a chain of three positions.
     */
    @Test
    void burnsBehindTheHeadAreRememberedUpToTheBoundExactly() {
        SignedJob[] jobs = Jobs.onTargets(Jobs::unsigned, S, "*", "*", "*", "*");
        ChainProjection c = bounded(3, Optional.of(new JobId[] {ELSEWHERE, next(jobs[3])}));
        for (int i = 1; i < 4; i++) {
            c.onJob(jobs[i]);
        }
        assertEquals(next(jobs[3]), c.head());
        for (SignedJob j : jobs) {
            c.onBurn(pos(j));
        }
        assertEquals(next(jobs[3]), c.head(), "every burn was behind the head");
        assertEquals(4, c.ignoredBurns());
        assertEquals(Set.of(pos(jobs[0]), pos(jobs[1]), pos(jobs[2])), c.heldBurns(), "three remembered, the fourth not");
    }

    /**
     * One job arriving at the head lets the head walk over every position the chain can hold
     * (its bound of jobs and its bound of burns) in one walk, which must not be taken for a cycle.
     */
    @Test
    void theHeadWalksOverAFullChainInOneGo() {
        SignedJob last = at(Chain.afterBurn(Chain.afterBurn(next(at(Chain.first(S), OTHER)))), OTHER);
        SignedJob first = at(Chain.first(S), OTHER);
        JobId burnt1 = next(first);
        JobId burnt2 = Chain.afterBurn(burnt1);
        assertEquals(pos(last), Chain.afterBurn(burnt2));
        ChainProjection c = bounded(2, Optional.empty());
        c.onBurn(burnt1);
        c.onBurn(burnt2);
        c.onJob(last);
        assertEquals(Chain.first(S), c.head(), "a hole at the head holds everything");
        c.onJob(first); // two jobs for others and two burns: four steps
        assertEquals(next(last), c.head());
        assertEquals(2, c.overflow(), "the walk left four positions; two are remembered");
    }
}
