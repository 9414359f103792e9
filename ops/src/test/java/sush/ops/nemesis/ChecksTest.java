package sush.ops.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The nemesis's checkers judge what they are given and nothing else: each passes a history that
 * keeps its promise and fails the same history with one promise broken (a checker that cannot
 * fail checks nothing).
 */
class ChecksTest {
    private static Ledger.Execution ran(String job, int sled, long pid, String tag) {
        return new Ledger.Execution(job, sled, pid, 1, tag, job + " sled0" + sled + " " + pid + " 1 " + tag);
    }

    private static Workload.Submitted request(String tag, String job, String successor, String target) {
        return new Workload.Submitted(tag, job, successor, "s", target, 0, "ok");
    }

    private static Observer.Claim said(String job, int sled, String status, Integer exit) {
        return new Observer.Claim(job, sled, status, exit, null, null, null);
    }

    @Test
    void aJobRunTwiceOnOneSledIsCaughtOnceOnTwoSledsIsNot() {
        assertEquals(List.of(), Checks.atMostOnce(List.of(ran("a", 0, 10, "r1"), ran("a", 1, 11, "r1"))));
        List<String> v = Checks.atMostOnce(List.of(ran("a", 0, 10, "r1"), ran("a", 1, 11, "r1"), ran("a", 0, 12,
                "r1")));
        assertEquals(1, v.size(), v.toString());
        assertTrue(v.get(0).contains("ran twice on sled 0"), v.get(0));
        assertEquals(1, Checks.atMostOnce(List.of(new Ledger.Execution("", -1, 0, 0, "", "garbage"))).size());
    }

    @Test
    void aSledThatCallsARunJobCancelledOrAnUnrunJobDoneLies() {
        Map<String, Workload.Submitted> requests = Map.of("r1", request("r1", "a", "a2", "*"));
        List<Ledger.Execution> ledger = List.of(ran("a", 0, 10, "r1"));
        assertEquals(List.of(), Checks.statusTruth(ledger, List.of(said("a", 0, "stopped", 0), said("a", 1,
                "cancelled", null), said("a", 1, "skipped", null)), requests));
        assertEquals(1, Checks.statusTruth(ledger, List.of(said("a", 0, "cancelled", null)), requests).size());
        // A skip (already handled, superseded) says the job does not run now, not that it never ran.
        assertEquals(List.of(), Checks.statusTruth(ledger, List.of(said("a", 0, "skipped", null)), requests));
        assertEquals(1, Checks.statusTruth(ledger, List.of(said("a", 1, "stopped", 0)), requests).size());
        // An error or an interruption may come before the command's first line: no lie.
        assertEquals(List.of(), Checks.statusTruth(ledger, List.of(said("a", 1, "error", null), said("a", 1,
                "interrupted", null)), requests));
    }

    @Test
    void aConflictSpeaksOfTheRequestItRefused() {
        Map<String, Workload.Submitted> requests = Map.of("r1", request("r1", "a", "succ-1", "*"), "r2",
                request("r2", "a", "succ-2", "*"));
        List<Ledger.Execution> ledger = List.of(ran("a", 0, 10, "r1"));
        Observer.Claim truthful = new Observer.Claim("a", 0, "skipped", null, "conflict", "succ-1", "succ-2");
        Observer.Claim refusedWhatRan = new Observer.Claim("a", 0, "skipped", null, "conflict", "succ-2", "succ-1");
        assertEquals(List.of(), Checks.statusTruth(ledger, List.of(truthful), requests));
        assertEquals(1, Checks.statusTruth(ledger, List.of(refusedWhatRan), requests).size());
    }

    @Test
    void aJobRunOffItsTargetOrNeverSignedIsCaught() {
        Map<String, Workload.Submitted> requests = Map.of("r1", request("r1", "a", "a2", "913-0000019:LOCAL0000"),
                "r2", request("r2", "b", "b2", "*"));
        IntFunction<String> board = i -> String.format("913-0000019:LOCAL%04d", i);
        assertEquals(List.of(), Checks.targeted(List.of(ran("a", 0, 1, "r1"), ran("b", 2, 2, "r2")), requests,
                board));
        assertEquals(1, Checks.targeted(List.of(ran("a", 1, 1, "r1")), requests, board).size());
        assertEquals(1, Checks.targeted(List.of(ran("c", 1, 1, "r9")), requests, board).size());
        // A request's tag at another position is not that request.
        assertEquals(1, Checks.targeted(List.of(ran("b", 1, 1, "r1")), requests, board).size());
    }

    @Test
    void aStackTraceInALogIsAnUntypedFailureAWarningLineIsNot(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("daemon.log");
        Files.writeString(log, "2026 WARN sush.sled - recording the execution boundary failed: EIO\n");
        assertEquals(List.of(), Checks.untypedFailures(log));
        Files.writeString(log, "2026 ERROR x - boom\njava.lang.IllegalStateException: boom\n\tat a.b.C.d(C.java:1)\n"
                + "\tat a.b.C.e(C.java:2)\nException in thread \"t\" java.lang.Error\n");
        assertEquals(2, Checks.untypedFailures(log).size(), Checks.untypedFailures(log).toString());
    }
}
