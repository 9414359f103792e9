package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;

import org.junit.jupiter.api.Test;

import reactor.core.scheduler.Schedulers;
import sush.pipeline.Rack;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.fold.FoldBounds;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * What each delivery makes the sled do beyond the fold (issue 37's mutation run found these
 * unchecked): requests released or linked behind a resumed head are reported, a request re-sent
 * into a new universe re-tells this life's ending, forgotten stops are events, and a delivery
 * stream that fails fails the sled closed.
 */
class IngressEffectsTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static List<JobId> ledger(SledHarness h) {
        return h.ledger.stream().map(l -> l.job()).toList();
    }

    private static List<JobId> alreadyHandled(SledHarness h) {
        return h.gossiped(Message.JobSkipped.class).stream()
                .filter(s -> s.reason() == Message.SkipReason.ALREADY_HANDLED).map(Message.JobSkipped::job).toList();
    }

    /** One life runs j0 and j1 of session 1 in universe 1 (j1 committed last) and ends. */
    private static SledHarness ranTwo(List<SignedJob> jobs) throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        assertEquals(List.of(id(jobs.get(0)), id(jobs.get(1))), ledger(h));
        h.crash();
        return h;
    }

    @Test
    void aRequestHeldUntilItsSessionIsActiveIsAlreadyHandledBehindTheResumedHead() throws Exception {
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "r", "*");
        SledHarness h = ranTwo(jobs);
        // Universe 2: side 1 forks before the session starts, and is sent j0 again; side 0 starts it.
        h.side(2, 1);
        h.operator0side(2, 1, new Message.JobStart(jobs.get(0)));
        h.operator0(2, Rack.start(1));
        h.boot(2, 1);
        assertEquals(List.of(), alreadyHandled(h), "its session is not known yet: held");
        h.peers(0);
        h.sync();
        assertEquals(List.of(id(jobs.get(0))), alreadyHandled(h), "released behind the head the record resumes");
        assertEquals(2, h.ledger.size());
    }

    @Test
    void aBurnArrivingLateLinksAnEarlierRequestToTheResumedHead() throws Exception {
        SignedJob j0 = Jobs.at(Signers.KEY, Rack.session(1), Chain.first(Rack.session(1)), "a", "*", false);
        SignedJob j1 = Jobs.after(Signers.KEY, j0, "b", "*", false);
        JobId burnt = j1.request().successor();
        SignedJob j2 = Jobs.at(Signers.KEY, Rack.session(1), Chain.afterBurn(burnt), "c", "*", false);
        SledHarness h = new SledHarness().provision().boot(1);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(j0));
        h.operator(new Message.JobStart(j1));
        h.operator(new Message.JobSkip(Rack.session(1), burnt, "operator"));
        h.operator(new Message.JobStart(j2));
        h.sync();
        h.launcher.end(id(j0), 0);
        h.settle();
        h.launcher.end(id(j1), 0);
        h.settle();
        h.sync();
        assertEquals(List.of(id(j0), id(j1), id(j2)), ledger(h));
        h.crash();
        // Universe 2 holds j1 and j2 again, without the burn between them: j1 leads nowhere yet.
        h.operator0(2, Rack.start(1));
        h.operator0(2, new Message.JobStart(j1));
        h.operator0(2, new Message.JobStart(j2));
        h.boot(2);
        assertTrue(!alreadyHandled(h).contains(id(j1)), h.gossiped().toString());
        h.operator(new Message.JobSkip(Rack.session(1), burnt, "operator"));
        h.sync();
        assertTrue(alreadyHandled(h).contains(id(j1)), "the burn links j1 to the head: " + h.gossiped());
        assertEquals(3, h.ledger.size());
    }

    @Test
    void aRequestReSentIntoANewUniverseTellsTheEndingThisLifeGaveIt() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "n", "*", true);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.launcher.end(id(jobs.get(0)), 4);
        h.settle();
        assertEquals(1, h.gossiped(Message.JobStopped.class).size());
        h.operator0(2, Rack.start(1));
        h.migrate(2);
        List<Message> before = h.gossiped();
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        List<Message> told = h.gossiped().subList(before.size(), h.gossiped().size());
        assertEquals(List.of(new Message.JobStarted(Rack.ME.baseboard(), id(jobs.get(0)))),
                told.stream().filter(m -> m instanceof Message.JobStarted).toList());
        List<Message.JobStopped> stopped = told.stream().filter(m -> m instanceof Message.JobStopped)
                .map(m -> (Message.JobStopped) m).toList();
        assertEquals(1, stopped.size(), told.toString());
        assertEquals(id(jobs.get(0)), stopped.get(0).job());
        assertEquals(4, stopped.get(0).exitCode().intValue());
    }

    @Test
    void stopsForgottenByTheirBoundAreReportedAsEvictions() throws Exception {
        SledHarness h = new SledHarness();
        FoldBounds d = FoldBounds.DEFAULTS;
        h.bounds = new FoldBounds(d.jobSessions(), d.sessions(), d.sessionEndings(), d.chainPositions(),
                d.earlyMessages(), d.sessionStops(), 2);
        h.provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "e", "*");
        h.operator(Rack.start(1));
        h.sync();
        assertEquals(List.of(), h.events(SledEvent.Evicted.class));
        jobs.forEach(j -> h.operator(new Message.JobStop(id(j), "operator"))); // their requests never came
        h.sync();
        assertEquals(List.of(new SledEvent.Evicted("job-stops", 1)), h.events(SledEvent.Evicted.class));
    }

    @Test
    void aDeliveryStreamThatFailsFailsTheSledClosed() throws Exception {
        SledHarness h = new SledHarness().provision();
        h.ingress = Schedulers.fromExecutor(r -> {
            throw new RejectedExecutionException("the ingress stage is shut down");
        });
        h.boot(1);
        h.operator(Rack.start(1));
        h.sync();
        assertTrue(h.sled.failure().isPresent(), h.events.toString());
        List<SledEvent.Halted> halted = h.events(SledEvent.Halted.class);
        assertEquals(1, halted.size(), h.events.toString());
        assertEquals("delivery", halted.get(0).stage());
    }
}
