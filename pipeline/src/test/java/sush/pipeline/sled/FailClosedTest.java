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
    private static class Thrower implements java.util.function.Consumer<String> {
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
                throw fault(s);
            }
        }

        RuntimeException fault(String s) {
            return new IllegalStateException("injected into " + s);
        }
    }

    /**
     * Issue 35: a full disk under the memory-mapped journal surfaces as an {@code InternalError}
     * (a {@code VirtualMachineError}); the loop rethrew those, its delivery stream died, and the
     * sled folded nothing more while it said it was ready. Now it fails closed like any other
     * fault: it says so, halts, and admits nothing.
     */
    @Test
    void anErrorOfTheJvmInTheLoopFailsTheSledClosedLoudly() throws Exception {
        SledHarness h = new SledHarness().provision();
        boolean[] thrown = new boolean[1];
        h.beforeStart = sled -> sled.probe(s -> {
            if (s.equals("delivery") && !thrown[0]) {
                thrown[0] = true;
                throw new InternalError("a fault occurred in a recent unsafe memory access operation in compiled Java "
                        + "code");
            }
        });
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "e", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.settle();
        assertTrue(thrown[0]);
        assertTrue(h.sled.failure().isPresent(), "the sled says it failed (/ready answers 503 with it)");
        assertEquals(1, h.events(SledEvent.Halted.class).size(), "the daemon exits 70 on this event");
        h.operator(new Message.JobStart(jobs.get(1)));
        h.sync();
        h.settle();
        assertEquals(0, h.ledger.size(), "nothing is admitted after it");
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
