package sush.ops.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 16: job outputs past their budget go oldest finished first; a running job's never. */
class OutputBudgetTest {
    @TempDir
    Path jobs;

    private Path job(String name, int bytes, long minute) throws Exception {
        Path d = Files.createDirectories(jobs.resolve(name));
        Files.write(d.resolve("stdout"), new byte[bytes]);
        Files.setLastModifiedTime(d, FileTime.fromMillis(minute * 60_000));
        return d;
    }

    @Test
    void theOldestFinishedOutputsGoUntilTheRestFitsAndTheNewestStays() throws Exception {
        Path running = job("running-oldest", 100, 1);
        Path old = job("old", 100, 2);
        Path middle = job("middle", 100, 3);
        Path newest = job("newest", 100, 4);
        List<Path> deleted = OutputBudget.prune(jobs, 250, Set.of("running-oldest"));
        assertEquals(List.of(old, middle), deleted);
        assertTrue(Files.exists(running), "a running job's output is never deleted");
        assertTrue(Files.exists(newest));
        assertFalse(Files.exists(old));
        assertEquals(List.of(), OutputBudget.prune(jobs, 250, Set.of()), "within the budget: nothing");
        assertEquals(List.of(running), OutputBudget.prune(jobs, 100, Set.of()), "finished now: the oldest goes");
        assertEquals(List.of(), OutputBudget.prune(jobs.resolve("absent"), 1, Set.of()));
    }
}
