package sush.ops.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.locker.admission.Verdict;
import sush.pipeline.exec.Ending;
import sush.pipeline.exec.Output;
import sush.pipeline.sled.SledEvent;
import sush.projections.fold.JobStatus;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionIds;
import sush.projections.message.Message;

class StageTraceTest {
    @TempDir
    Path dir;

    @Test
    void eachStageOfAJobIsOneLineWithMonotonicNanosAndNoCommandText() throws Exception {
        JobId job = Chain.first(SessionIds.compute("913-0000019:OP", new byte[SessionIds.NONCE_BYTES], new byte[1]));
        Output none = new Output(0, new byte[32], 0, new byte[32]);
        Message.JobStopped stopped = new Message.JobStopped("me", job, 0, null, 0, new byte[32], 0, new byte[32]);
        Path file = dir.resolve("trace");
        try (StageTrace t = StageTrace.open(file, "me")) {
            t.on(new SledEvent.Requested(job));
            t.on(new SledEvent.Screened(job, new Verdict.Admit("rule 4")));
            t.on(new SledEvent.Committed(job, 3, 900));
            t.on(new SledEvent.Launched(job));
            t.on(new SledEvent.Ended(job, new Ending.Exited(0, none, List.of())));
            t.on(new SledEvent.Gossiped(stopped));
            t.on(new SledEvent.StatusChanged(job, "other", JobStatus.STOPPED, stopped));
            t.on(new SledEvent.StatusChanged(job, "other", JobStatus.STARTED, stopped));
            t.on(new SledEvent.Drained(7));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(List.of("requested", "screened", "committed", "launched", "ended", "reported", "seen"),
                lines.stream().map(l -> l.split(" ")[1]).toList(), lines.toString());
        long before = Long.MIN_VALUE;
        for (String l : lines) {
            String[] f = l.split(" ");
            assertEquals(4, f.length, l);
            assertTrue(Long.parseLong(f[0]) >= before, "monotonic: " + lines);
            before = Long.parseLong(f[0]);
            assertEquals(job.codephrase(), f[2]);
        }
        assertEquals("other", lines.get(6).split(" ")[3], "a status seen here names the sled it is of");
        assertEquals("me", lines.get(0).split(" ")[3]);
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(file)));
        // Appends: a restarted daemon keeps the earlier lines.
        try (StageTrace t = StageTrace.open(file, "me")) {
            t.on(new SledEvent.Launched(job));
        }
        assertEquals(lines.size() + 1, Files.readAllLines(file).size());
        assertFalse(Files.readString(file).contains("true"), "no command text");
    }
}
