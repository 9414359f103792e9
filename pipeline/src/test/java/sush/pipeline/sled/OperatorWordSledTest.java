package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.locker.record.BoundaryRecord;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.fold.FoldBounds;
import sush.projections.fold.JobStatus;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.pipeline.Rack;

/**
 * Issue 34 in one sled (ordered-sessions.md section 9): a stop that arrives while the job's
 * commit is on its way to the slots is kept and honoured at the launch, and the record says so; a
 * running job's starter stops it after every bounded memory forgot its session; a request at a
 * position the record gives another request is a conflict, never that request's ending.
 */
class OperatorWordSledTest {
    @Test
    void aStopWhileTheCommitIsStoredCancelsTheJobAndTheRecordSaysSoAcrossARestart() throws Exception {
        SledHarness h = new SledHarness().provision();
        List<Runnable> held = new ArrayList<>();
        h.bootHoldingWrites(held);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "w", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(1, h.sled.view().block().pendingLaunches(), "committed, its write held");
        h.operator(new Message.JobStop(jobs.get(0).request().job(), "operator"));
        h.sync();
        assertEquals(1, h.events(SledEvent.StopKept.class).size());
        h.runHeld(held);
        h.settle();
        assertEquals(0, h.ledger.size(), "never spawned");
        assertEquals(List.of(new Message.JobCancelled(Rack.ME.baseboard(), jobs.get(0).request().job())),
                h.gossiped(Message.JobCancelled.class));
        BoundaryRecord r = (BoundaryRecord) h.sled.view().block().record().orElseThrow();
        assertEquals(JobStatus.CANCELLED, r.committed().orElseThrow().outcome().status(), "recorded over the commit");

        // A restart that lost the gossip reads Ended(Cancelled): it tells Cancelled, never a zombie.
        SledHarness again = new SledHarness();
        again.a.setContents(h.a.contents());
        again.b.setContents(h.b.contents());
        again.boot(7);
        again.settle();
        assertEquals(List.of(new Message.JobCancelled(Rack.ME.baseboard(), jobs.get(0).request().job())),
                again.gossiped(Message.JobCancelled.class));
        assertTrue(again.gossiped(Message.JobErrored.class).isEmpty(), again.gossiped().toString());

        // The next (sequential) job runs: the cancelled one ended here.
        h.operator(new Message.JobStart(jobs.get(1)));
        h.sync();
        h.runHeld(held);
        h.settle();
        assertEquals(1, h.ledger.size());
    }

    @Test
    void aRunningJobsStarterStopsItAfterEveryBoundedMemoryForgotItsSession() throws Exception {
        SledHarness h = new SledHarness().provision();
        h.bounds = new FoldBounds(1, 1, 1, 65_536, 16, 1, 4);
        h.boot(1);
        List<SignedJob> first = Rack.jobs(Rack.session(1), 1, "long", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(first.get(0)));
        h.sync();
        h.settle();
        assertEquals(1, h.ledger.size(), "running");
        // Its session ends (the job runs on), a newer one starts, and its requests push the job's
        // request, its session and its ending out of the fold's memories.
        h.operator(new Message.SessionStop(Rack.session(1), "operator"));
        h.operator(Rack.start(2));
        for (SignedJob j : Rack.jobs(Rack.session(2), 3, "later", "1")) {
            h.operator(new Message.JobStart(j));
        }
        h.sync();
        h.settle();
        assertTrue(h.sled.view().block().fold().sessionOf(first.get(0).request().job()).isPresent(),
                "pinned while it runs");
        h.operator(new Message.JobStop(first.get(0).request().job(), "operator"));
        h.sync();
        h.settle();
        assertTrue(h.gossiped(Message.JobErrored.class).stream().anyMatch(e -> e.job().equals(first.get(0).request()
                .job()) && e.kind() == Message.JobError.KILLED), "its starter's stop killed it");
    }

    @Test
    void aRequestAtAPositionTheRecordGivesAnotherRequestIsAConflictNeverThatRequestsEnding() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "ran", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.settle();
        h.launcher.end(jobs.get(0).request().job(), 0);
        h.settle();
        h.crash();
        // A whole-rack cold boot: the session comes back, and another request at the used position.
        h.operator0(3, Rack.start(1));
        SignedJob other = Jobs.at(Signers.KEY, Rack.session(1), jobs.get(0).request().job(), "another", "*", false);
        h.operator0(3, new Message.JobStart(other));
        h.boot(3);
        h.settle();
        List<Message.JobConflict> c = h.gossiped(Message.JobConflict.class);
        assertEquals(1, c.size(), h.gossiped().toString());
        assertEquals(jobs.get(0).request().successor(), c.get(0).held());
        assertEquals(other.request().successor(), c.get(0).refused());
        assertEquals(1, h.ledger.size(), "the other request never runs here");
    }
    /**
     * Issue 38 (the nemesis, causal ordering): a sled that ran a request in an earlier life, then
     * entered a universe that delivered another request at that position first, said it held the
     * other one and refused the one it had run. Behind its head it cannot tell which ran there:
     * no conflict naming either, and nothing runs again.
     */
    @Test
    void aSledThatRanARequestInAnEarlierLifeNeverSaysItHoldsAnother() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = ranThenCrashed(h, 2);
        SignedJob other = Jobs.at(Signers.KEY, Rack.session(1), jobs.get(0).request().job(), "another", "*", false);
        h.operator0(3, Rack.start(1));
        h.operator0(3, new Message.JobStart(other));
        h.operator0(3, new Message.JobStart(jobs.get(0)));
        h.operator0(3, new Message.JobStart(jobs.get(1)));
        h.boot(3);
        h.settle();
        assertTrue(h.gossiped(Message.JobConflict.class).stream().noneMatch(c -> c.held().equals(
                other.request().successor())), "never says it holds a request it may not have run: " + h.gossiped());
        assertEquals(2, h.ledger.size(), "nothing ran again");
    }

    /**
     * Issue 38 again (the nemesis, signed ordering, 30 minutes): the same after a restart, at a
     * position that is not the session's first. The other request held there has another
     * successor, so the chain cannot walk back from the resumed head to the position: it is not
     * known to be behind the head, and the sled vouched for the request it held there. Only a
     * position known to be at or ahead of the head is vouched for.
     */
    @Test
    void aSledThatRanARequestInAnEarlierLifeNeverSaysItHoldsAnotherAnywhereInTheChain() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = ranThenCrashed(h, 3);
        // The other request wins the position on digest (the smaller one is kept ahead of the head).
        SignedJob other = null;
        for (int i = 0; other == null; i++) {
            SignedJob o = Jobs.at(Signers.KEY, Rack.session(1), jobs.get(1).request().job(), "another " + i, "*", false);
            if (java.util.Arrays.compareUnsigned(o.request().digest(), jobs.get(1).request().digest()) < 0) {
                other = o;
            }
        }
        h.operator0(3, Rack.start(1));
        h.operator0(3, new Message.JobStart(jobs.get(0)));
        h.operator0(3, new Message.JobStart(other));
        h.operator0(3, new Message.JobStart(jobs.get(1)));
        h.operator0(3, new Message.JobStart(jobs.get(2)));
        h.boot(3);
        h.settle();
        JobId otherSuccessor = other.request().successor();
        assertTrue(h.gossiped(Message.JobConflict.class).stream().noneMatch(c -> c.held().equals(otherSuccessor)),
                "never says it holds a request it may not have run: " + h.gossiped());
        assertEquals(3, h.ledger.size(), "nothing ran again");
    }

    /** {@code n} jobs of session 1 on every sled, each run and ended here, then the sled crashes. */
    private static List<SignedJob> ranThenCrashed(SledHarness h, int n) throws Exception {
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), n, "ran", "*");
        h.operator(Rack.start(1));
        for (SignedJob j : jobs) {
            h.operator(new Message.JobStart(j));
            h.sync();
            h.settle();
            h.launcher.end(j.request().job(), 0);
            h.settle();
        }
        assertEquals(n, h.ledger.size());
        h.crash();
        return jobs;
    }

    /**
     * Issue 35: a full output disk is a state, not a fault. A job reaching the head while the
     * disk is below its reserve is refused {@code no-space}, before anything is committed (never
     * started, the record untouched); the sled keeps folding; once space returns the next job runs,
     * without a restart.
     */
    @Test
    void aJobReachingTheHeadWhileTheDiskIsShortIsRefusedNoSpaceAndTheNextRunsOnceSpaceReturns() throws Exception {
        long[] free = {0};
        SledHarness h = new SledHarness().provision();
        h.disk = new sush.pipeline.disk.DiskReserve(() -> free[0], 1L << 20, "/out");
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "w", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(0, h.ledger.size(), "not started");
        List<Message.JobErrored> refused = h.gossiped(Message.JobErrored.class);
        assertEquals(1, refused.size(), h.gossiped().toString());
        assertEquals(Message.JobError.NO_SPACE, refused.get(0).kind());
        assertTrue(refused.get(0).detail().startsWith("no-space: 0 bytes free on /out"), refused.get(0).detail());
        assertTrue(h.sled.view().block().record().map(r -> ((BoundaryRecord) r).committed().isEmpty()).orElse(true),
                "nothing committed for a refused job");
        assertTrue(h.sled.shortOfSpace().isPresent());
        assertTrue(h.sled.failure().isEmpty(), "a full disk is not a failure");

        free[0] = 10L << 20;
        assertTrue(h.sled.shortOfSpace().isEmpty());
        h.operator(new Message.JobStart(jobs.get(1)));
        h.sync();
        assertEquals(1, h.ledger.size(), "the next job ran once space returned");
    }
}
