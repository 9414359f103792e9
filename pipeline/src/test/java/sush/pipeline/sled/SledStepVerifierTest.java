package sush.pipeline.sled;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import reactor.test.StepVerifier;
import sush.pipeline.Rack;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/** The sled's event stream, step by step, with StepVerifier on the sled's virtual time. */
class SledStepVerifierTest {
    @Test
    void anEntryThenAJobAtTheHeadGoesRequestedScreenedCommittedLaunchedEnded() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "sv", "*");
        StepVerifier.create(h.sled.events().filter(e -> !(e instanceof SledEvent.Gossiped)
                && !(e instanceof SledEvent.StatusChanged)))
                .expectNextMatches(e -> e instanceof SledEvent.Entered && ((SledEvent.Entered) e).floor().isEmpty())
                .expectNextMatches(e -> e instanceof SledEvent.Drained)
                .then(() -> {
                    h.operator(Rack.start(1));
                    h.operator(new Message.JobStart(jobs.get(0)));
                    h.sync();
                })
                .expectNextMatches(e -> e instanceof SledEvent.Requested
                        && ((SledEvent.Requested) e).job().equals(jobs.get(0).request().job()))
                .expectNextMatches(e -> e instanceof SledEvent.Screened
                        && ((SledEvent.Screened) e).verdict() instanceof sush.locker.admission.Verdict.Admit)
                .expectNextMatches(e -> e instanceof SledEvent.Reserved)
                .expectNextMatches(e -> e instanceof SledEvent.Committed && ((SledEvent.Committed) e).seq() == 1)
                .expectNextMatches(e -> e instanceof SledEvent.Launched)
                .then(() -> {
                    h.launcher.end(jobs.get(0).request().job(), 0);
                    h.settle();
                })
                .expectNextMatches(e -> e instanceof SledEvent.Ended)
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void theSledsOwnReportsArriveAsStatusChangesInPrecedenceOrder() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "sv", "*");
        StepVerifier.create(h.sled.events().ofType(SledEvent.StatusChanged.class).map(SledEvent.StatusChanged::status))
                .then(() -> {
                    h.operator(Rack.start(1));
                    h.operator(new Message.JobStart(jobs.get(0)));
                    h.sync();
                })
                .expectNext(sush.projections.fold.JobStatus.STARTED)
                .then(() -> {
                    h.launcher.end(jobs.get(0).request().job(), 0);
                    h.settle();
                })
                .expectNext(sush.projections.fold.JobStatus.STOPPED)
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }
}
