package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import sush.locker.record.Outcome;
import sush.pipeline.exec.Ending;
import sush.pipeline.exec.Output;
import sush.projections.fold.JobStatus;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.message.Message;

/**
 * How a launched job's ending becomes the status the sled gossips and the outcome its record
 * keeps, and how a recorded outcome is announced after a restart (issue 21: every branch).
 */
class EndingsTest {
    private static final String ME = "p:me";
    private static final JobId JOB = new JobId(new byte[11]);
    private static final byte[] SHA_A = Hashes.sha3Raw(new byte[] {1});
    private static final byte[] SHA_B = Hashes.sha3Raw(new byte[] {2});
    private static final Output OUT = new Output(5, SHA_A, 7, SHA_B);
    private static final byte[] EMPTY_SHA3 = Hashes.sha3Raw(new byte[0]);

    @Test
    void anExitIsAStopWithItsCodeAndItsOutput() {
        Message.JobStopped m = assertInstanceOf(Message.JobStopped.class,
                Endings.message(ME, JOB, new Ending.Exited(3, OUT), false));
        assertEquals(ME, m.baseboard());
        assertEquals(JOB, m.job());
        assertEquals(3, m.exitCode());
        assertNull(m.processError());
        assertEquals(5, m.stdoutBytes());
        assertArrayEquals(SHA_A, m.stdoutSha3());
        assertEquals(7, m.stderrBytes());
        assertArrayEquals(SHA_B, m.stderrSha3());
        assertEquals(Outcome.ended(JobStatus.STOPPED, 3, ""), Endings.outcome(new Ending.Exited(3, OUT)));
    }

    @Test
    void aKillSaysWhyAndWhatElseItKilled() {
        Message.JobErrored stop = assertInstanceOf(Message.JobErrored.class,
                Endings.message(ME, JOB, new Ending.Killed(15, Ending.Cause.STOP, OUT), false));
        assertEquals(Message.JobError.KILLED, stop.kind());
        assertEquals("stopped by an operator", stop.detail());
        assertEquals(15, stop.signal());
        Message.JobErrored shutdown = (Message.JobErrored) Endings.message(ME, JOB,
                new Ending.Killed(9, Ending.Cause.STOP, OUT), true);
        assertEquals("the sled's daemon shut down", shutdown.detail());
        Message.JobErrored wall = (Message.JobErrored) Endings.message(ME, JOB,
                new Ending.Killed(9, Ending.Cause.WALL_TIME, OUT, List.of("12 sleep 9")), false);
        assertEquals("wall-time limit reached; also killed 1 process it started", wall.detail());
        assertEquals(Message.JobError.LIMIT, wall.kind());
        Message.JobErrored cpu = (Message.JobErrored) Endings.message(ME, JOB,
                new Ending.Killed(24, Ending.Cause.CPU_LIMIT, OUT), false);
        assertEquals(Message.JobError.LIMIT, cpu.kind());
        assertEquals("cpu limit reached", cpu.detail());
        assertEquals(24, cpu.signal());
        assertEquals("file-size limit reached", ((Message.JobErrored) Endings.message(ME, JOB,
                new Ending.Killed(25, Ending.Cause.FILE_SIZE_LIMIT, OUT), false)).detail());
        assertEquals(Outcome.ended(JobStatus.ERROR, 24, "limit"),
                Endings.outcome(new Ending.Killed(24, Ending.Cause.CPU_LIMIT, OUT)));
        Message.JobErrored output = (Message.JobErrored) Endings.message(ME, JOB,
                new Ending.Killed(9, Ending.Cause.OUTPUT_LIMIT, OUT, List.of("1 a", "2 b")), false);
        assertEquals(Message.JobError.OUTPUT_LIMIT, output.kind());
        assertEquals("output limit reached; also killed 2 processes it started", output.detail());
        assertEquals(9, output.signal());
        assertEquals(Outcome.ended(JobStatus.ERROR, 9, "output-limit"),
                Endings.outcome(new Ending.Killed(9, Ending.Cause.OUTPUT_LIMIT, OUT)));
        assertEquals(Outcome.ended(JobStatus.ERROR, 15, "killed"),
                Endings.outcome(new Ending.Killed(15, Ending.Cause.STOP, OUT)));
    }

    @Test
    void aFailureToStartIsAStopWithoutOutputAndAFailureToKeepOutputIsAnError() {
        Message.JobStopped spawn = assertInstanceOf(Message.JobStopped.class, Endings.message(ME, JOB,
                new Ending.Failed(Ending.Failed.Kind.SPAWN, "no bash"), false));
        assertNull(spawn.exitCode());
        assertEquals("no bash", spawn.processError());
        assertEquals(0, spawn.stdoutBytes());
        assertArrayEquals(EMPTY_SHA3, spawn.stdoutSha3());
        Message.JobErrored io = assertInstanceOf(Message.JobErrored.class, Endings.message(ME, JOB,
                new Ending.Failed(Ending.Failed.Kind.IO, "disk full"), false));
        assertEquals(Message.JobError.IO, io.kind());
        assertEquals("disk full", io.detail());
        assertEquals(Outcome.ended(JobStatus.STOPPED, -1, "spawn"),
                Endings.outcome(new Ending.Failed(Ending.Failed.Kind.SPAWN, "x")));
        assertEquals(Outcome.ended(JobStatus.ERROR, 0, "io"), Endings.outcome(new Ending.Failed(Ending.Failed.Kind.IO, "x")));
    }

    @Test
    void aRecordedOutcomeIsAnnouncedAsWhatItRecorded() {
        // Committed without an ending: interrupted.
        List<Message> committed = Endings.recorded(ME, JOB, Outcome.COMMITTED);
        assertEquals(1, committed.size());
        assertEquals(Message.JobError.INTERRUPTED, ((Message.JobErrored) committed.get(0)).kind());
        assertEquals(Message.JobError.INTERRUPTED, ((Message.JobErrored) Endings.recorded(ME, JOB,
                Outcome.ended(JobStatus.INTERRUPTED, 0, "")).get(0)).kind());
        // A spawn failure: one stop without a code.
        List<Message> spawn = Endings.recorded(ME, JOB, Outcome.ended(JobStatus.STOPPED, -1, "spawn"));
        assertEquals(1, spawn.size());
        assertNull(((Message.JobStopped) spawn.get(0)).exitCode());
        assertEquals("the process did not start", ((Message.JobStopped) spawn.get(0)).processError());
        // An exit: started, then stopped with the code (no output: the record keeps none).
        List<Message> exit = Endings.recorded(ME, JOB, Outcome.ended(JobStatus.STOPPED, 4, ""));
        assertEquals(2, exit.size());
        assertInstanceOf(Message.JobStarted.class, exit.get(0));
        assertEquals(4, ((Message.JobStopped) exit.get(1)).exitCode());
        assertArrayEquals(EMPTY_SHA3, ((Message.JobStopped) exit.get(1)).stdoutSha3());
        // Errors keep their kind and signal.
        for (String[] kind : new String[][] {{"output-limit", "OUTPUT_LIMIT"}, {"io", "IO"}, {"killed", "KILLED"},
            {"limit", "LIMIT"}}) {
            List<Message> m = Endings.recorded(ME, JOB, Outcome.ended(JobStatus.ERROR, 9, kind[0]));
            assertEquals(2, m.size());
            assertInstanceOf(Message.JobStarted.class, m.get(0));
            Message.JobErrored e = (Message.JobErrored) m.get(1);
            assertEquals(Message.JobError.valueOf(kind[1]), e.kind(), kind[0]);
            assertEquals(9, e.signal());
            assertTrue(e.detail().contains("recorded before"), e.detail());
        }
    }

    @Test
    void aClientThatWentAwayIsAKillSaidAsSuch() {
        Message.JobErrored gone = assertInstanceOf(Message.JobErrored.class, Endings.message(ME, JOB,
                new Ending.Killed(9, Ending.Cause.CLIENT_GONE, OUT), false));
        assertEquals(Message.JobError.KILLED, gone.kind());
        assertEquals("the streaming client went away before the end", gone.detail());
        assertEquals(9, gone.signal());
        assertEquals(Outcome.ended(JobStatus.ERROR, 9, "killed"),
                Endings.outcome(new Ending.Killed(9, Ending.Cause.CLIENT_GONE, OUT)));
    }

    @Test
    void anEndingIsTimedAndAnythingElseIsLeftAsItIs() {
        Message.JobStopped stop = assertInstanceOf(Message.JobStopped.class,
                Endings.timed(Endings.stopped(ME, JOB, 0, OUT), 100, 250, 150));
        assertEquals(100L, stop.startedAtMs());
        assertEquals(250L, stop.endedAtMs());
        assertEquals(150L, stop.durationMs());
        Message.JobErrored error = assertInstanceOf(Message.JobErrored.class, Endings.timed(
                new Message.JobErrored(ME, JOB, Message.JobError.IO, "disk", 0), 100, 90, -10));
        assertEquals(100L, error.startedAtMs());
        assertEquals(90L, error.endedAtMs());
        assertEquals(0L, error.durationMs(), "a clock that went back gives no negative duration");
        Message.JobCancelled cancelled = new Message.JobCancelled(ME, JOB);
        assertEquals(cancelled, Endings.timed(cancelled, 1, 2, 1));
    }
}
