package sush.ops.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    @Test
    void eachEndingCountsItsOwnOutputAndTheOldestFinishedGoFirst() throws Exception {
        Path a = job("a", 100, 1);
        Path b = job("b", 100, 2);
        OutputBudget budget = new OutputBudget(jobs, 250);
        assertEquals(200, budget.total(), "listed once: both directories");
        Set<String> running = new java.util.HashSet<>(Set.of("a"));
        Path c = job("c", 100, 3);
        assertEquals(List.of(b), budget.ended("c", () -> running), "a runs: b is the oldest finished");
        assertTrue(Files.exists(a) && Files.exists(c));
        assertEquals(200, budget.total());
        running.clear();
        Path d = job("d", 30, 4);
        assertEquals(List.of(), budget.ended("d", () -> {
            throw new AssertionError("within the budget the running jobs are not asked for");
        }));
        Path e = job("e", 100, 5);
        assertEquals(List.of(a), budget.ended("e", () -> running), "a ended: now it is the oldest");
        assertEquals(230, budget.total());
        // A job's output that grew before its ending is counted at its ending, once.
        Files.write(e.resolve("stderr"), new byte[10]);
        assertEquals(List.of(), budget.ended("e", () -> running));
        assertEquals(240, budget.total());
        assertTrue(Files.exists(c) && Files.exists(d) && Files.exists(e));
    }

    /** Issue 39: past the count of jobs kept, the oldest finished go too, however small; a running one never. */
    @Test
    void theCountOfJobsKeptHoldsLikeTheBytes() throws Exception {
        Path a = job("a", 1, 1);
        Path b = job("b", 1, 2);
        OutputBudget budget = new OutputBudget(jobs, 1 << 20, 2);
        assertEquals(2, budget.directories());
        Set<String> running = new java.util.HashSet<>(Set.of("a"));
        job("c", 1, 3);
        assertEquals(List.of(b), budget.ended("c", () -> running), "three kept: the oldest finished goes (a runs)");
        assertTrue(budget.wasDeleted("b"));
        assertEquals(2, budget.directories());
        running.clear();
        job("d", 1, 4);
        assertEquals(List.of(a), budget.ended("d", () -> running));
        assertEquals(2, budget.directories());
        assertTrue(Files.exists(jobs.resolve("c")) && Files.exists(jobs.resolve("d")));
        assertThrows(IllegalArgumentException.class, () -> new OutputBudget(jobs, 1, 0));
    }

    /** The memory of deleted outputs holds the fewest it may however few jobs are kept, and forgets the oldest past it. */
    @Test
    void theMemoryOfDeletedOutputsHoldsItsBound() throws Exception {
        OutputBudget budget = new OutputBudget(jobs, 1 << 20, 1);
        int deletions = OutputBudget.MIN_DELETED_REMEMBERED + 1;
        for (int i = 0; i <= deletions; i++) {
            job("j" + i, 1, i);
            budget.ended("j" + i, Set::of);
        }
        assertFalse(budget.wasDeleted("j0"), "the oldest deletion, past the bound: forgotten");
        assertTrue(budget.wasDeleted("j1"));
        assertTrue(budget.wasDeleted("j" + (deletions - 1)));
        assertEquals(1, budget.directories(), "one job's output kept");
    }
}
