package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import sush.pipeline.Rack;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * Issue 13: burns after a restart, a burn of the job waiting at the head, and a commit nested in
 * another (at-most-once.md sections 2 and 6 as amended). Each test failed before the fix.
 */
class ChainSafetyTest {
    private static final SessionId S = Rack.session(1);

    private static SignedJob at(JobId position, String command, String target, boolean concurrent) {
        return Jobs.at(Signers.KEY, S, position, command, target, concurrent);
    }

    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    /** The operator submits {@code job}, the sled syncs, and the job (if launched) exits 0. */
    private static void runToItsEnd(SledHarness h, SignedJob job) {
        h.operator(new Message.JobStart(job));
        h.sync();
        h.launcher.end(id(job), 0);
        h.settle();
    }

    private static List<JobId> launched(SledHarness h) {
        return h.ledger.stream().map(l -> l.job()).toList();
    }

    @Test
    void aReplayedBurnBehindTheResumedHeadNeverRerunsAJob() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        SignedJob j1 = at(Chain.first(S), "j1", "7", false); // another sled's job
        SignedJob k2 = at(Chain.afterBurn(id(j1)), "k2", "*", false);
        SignedJob k3 = Jobs.after(Signers.KEY, k2, "k3", "*", false);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(j1));
        h.sync();
        h.operator(new Message.JobSkip(S, id(j1), "operator"));
        h.sync();
        runToItsEnd(h, k2);
        runToItsEnd(h, k3);
        h.sync();
        h.crash();
        h.boot(1);
        h.sync();
        h.settle();
        assertEquals(List.of(id(k2), id(k3)), launched(h), "no (sled, job) twice");
    }

    @Test
    void aReSentBurnAfterARestartNeverRerunsAJob() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        SignedJob j1 = at(Chain.first(S), "j1", "*", false);
        SignedJob j2 = Jobs.after(Signers.KEY, j1, "j2", "*", false);
        SignedJob k3 = at(Chain.afterBurn(id(j2)), "k3", "*", false);
        SignedJob k4 = Jobs.after(Signers.KEY, k3, "k4", "*", false);
        h.operator(Rack.start(1));
        runToItsEnd(h, j1);
        runToItsEnd(h, j2);
        // J2 is burnt while the head is its successor: the rack's branch goes on after the burn.
        h.operator(new Message.JobSkip(S, id(j2), "operator"));
        runToItsEnd(h, k3);
        runToItsEnd(h, k4);
        h.sync();
        h.crash();
        h.boot(1);
        h.sync();
        h.operator(new Message.JobSkip(S, id(j2), "operator")); // the operator re-sends the skip
        h.sync();
        h.settle();
        assertEquals(List.of(id(j1), id(j2), id(k3), id(k4)), launched(h), "no (sled, job) twice");
    }

    @Test
    void burningTheJobWaitingAtTheHeadDoesNotWedgeTheSled() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        SignedJob j0 = at(Chain.first(S), "j0", "*", false);
        SignedJob j1 = Jobs.after(Signers.KEY, j0, "j1", "*", false);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(j0));
        h.operator(new Message.JobStart(j1));
        h.sync(); // J0 runs, J1 (sequential) waits for it
        h.operator(new Message.JobSkip(S, id(j1), "operator"));
        h.sync();
        h.launcher.end(id(j0), 0);
        h.settle();
        SignedJob k2 = at(Chain.afterBurn(id(j1)), "k2", "*", false);
        h.operator(new Message.JobStart(k2));
        h.sync();
        assertEquals(List.of(id(j0), id(k2)), launched(h), "the burnt J1 never runs and K2 does");
        assertTrue(h.events(SledEvent.Failed.class).isEmpty(), h.events(SledEvent.Failed.class).toString());
        JobId committed = h.locker.newest().orElseThrow().committed().orElseThrow().job();
        assertEquals(id(k2), committed, "the newest record names K2, never the burnt J1");
    }

    @Test
    void aHoleFilledInFrontOfAConcurrentJobKeepsTheStoreOrder() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        SignedJob j0 = at(Chain.first(S), "j0", "*", false);
        SignedJob j1 = Jobs.after(Signers.KEY, j0, "j1", "*", true);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(j1));
        h.sync(); // J1 waits behind the hole at J0
        h.operator(new Message.JobStart(j0));
        h.sync();
        assertEquals(List.of(id(j0), id(j1)), launched(h), "both run, in chain order");
        assertTrue(h.gossiped(Message.JobErrored.class).isEmpty(), h.gossiped(Message.JobErrored.class).toString());
    }
}
