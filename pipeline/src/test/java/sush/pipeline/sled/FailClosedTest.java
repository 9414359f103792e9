package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import sush.pipeline.Rack;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * Fail closed, never silently (issue 13): an unexpected exception in any stage of the sled's loop
 * stops every later admission, emits one error event naming the stage, and halts (the daemon
 * then exits for its supervisor). Nothing runs after it.
 */
class FailClosedTest {
    /** Throws once, the first time {@code stage} starts after {@code armed} is set. */
    private static final class Thrower implements java.util.function.Consumer<String> {
        final String stage;
        boolean armed;
        boolean thrown;

        Thrower(String stage) {
            this.stage = stage;
        }

        @Override
        public void accept(String s) {
            if (armed && !thrown && s.equals(stage)) {
                thrown = true;
                throw new IllegalStateException("injected into " + s);
            }
        }
    }

    @Test
    void aThrowInAnyStageStopsAdmissionsAndSaysWhere() throws Exception {
        for (String stage : List.of("entry", "delivery", "commit result", "ending")) {
            SledHarness h = new SledHarness().provision();
            Thrower t = new Thrower(stage);
            t.armed = stage.equals("entry");
            h.beforeStart = sled -> sled.probe(t);
            h.boot(1);
            List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "f", "*");
            h.operator(Rack.start(1));
            h.operator(new Message.JobStart(jobs.get(0)));
            t.armed = true;
            h.sync();
            h.launcher.end(jobs.get(0).request().job(), 0);
            h.settle();
            jobs.subList(1, 3).forEach(j -> h.operator(new Message.JobStart(j)));
            h.sync();
            h.launcher.end(jobs.get(1).request().job(), 0);
            h.settle();
            assertTrue(t.thrown, stage + ": the fault was injected");
            List<SledEvent.Halted> halted = h.events(SledEvent.Halted.class);
            assertEquals(1, halted.size(), stage + ": one halt event");
            assertEquals(stage, halted.get(0).stage());
            assertTrue(halted.get(0).error().contains("injected into " + stage), halted.get(0).error());
            assertTrue(h.events(SledEvent.Failed.class).stream().anyMatch(f -> f.what().contains(stage)),
                    stage + ": an error event names the stage");
            assertTrue(h.sled.failure().isPresent(), stage);
            long admittedAfter = h.events.subList(h.events.indexOf(halted.get(0)), h.events.size()).stream()
                    .filter(e -> e instanceof SledEvent.Launched).count();
            assertEquals(0, admittedAfter, stage + ": nothing launches after the failure");
            assertTrue(h.ledger.size() <= 1, stage + ": at most the job before the failure ran: " + h.ledger);
        }
    }
}
