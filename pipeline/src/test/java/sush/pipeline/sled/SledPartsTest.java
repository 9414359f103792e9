package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import sush.pipeline.Rack;
import sush.pipeline.exec.Ending;
import sush.pipeline.exec.Output;
import sush.projections.id.JobId;

/** The host's clocks a daemon's sled reads, and the log line of an ending. */
class SledPartsTest {
    private static final JobId JOB = Rack.jobs(Rack.session(1), 1, "x", "*").get(0).request().job();

    @Test
    void theSystemClockReadsTheHostsWallAndMonotonicClocks() {
        SledClock c = SledClock.system();
        long wallBefore = System.currentTimeMillis();
        long monoBefore = System.nanoTime();
        long wall = c.wallMillis();
        long mono = c.monotonicNanos();
        long wallAfter = System.currentTimeMillis();
        long monoAfter = System.nanoTime();
        assertTrue(wall >= wallBefore && wall <= wallAfter, wallBefore + " <= " + wall + " <= " + wallAfter);
        assertTrue(mono - monoBefore >= 0 && monoAfter - mono >= 0, monoBefore + " <= " + mono + " <= " + monoAfter);
    }

    @Test
    void anEndingsSummaryIsItsStatusCodeAndDetailWord() {
        Output none = new Output(0, new byte[0], 0, new byte[0]);
        assertEquals("stopped 3", new SledEvent.Ended(JOB, new Ending.Exited(3, none)).summary());
        assertEquals("stopped -1 (spawn)", new SledEvent.Ended(JOB,
                new Ending.Failed(Ending.Failed.Kind.SPAWN, "no such file")).summary());
        assertEquals("error 9 (killed)", new SledEvent.Ended(JOB,
                new Ending.Killed(9, Ending.Cause.STOP, none)).summary());
    }
}
