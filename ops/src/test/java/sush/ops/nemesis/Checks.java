package sush.ops.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The nemesis's checkers (issue 38), pure functions of what happened: the jobs' own ledger, the
 * statuses the sleds claimed about themselves, what the operator signed, the daemons' logs.
 * Nothing a daemon says about its own correctness is used.
 */
final class Checks {
    private Checks() {
    }

    /** At most once: no job ran twice on one sled, ever (and every ledger line parses). */
    static List<String> atMostOnce(List<Ledger.Execution> ran) {
        List<String> out = new ArrayList<>();
        Map<String, Ledger.Execution> first = new HashMap<>();
        for (Ledger.Execution e : ran) {
            if (e.sled() < 0) {
                out.add("a ledger line that does not parse: " + e.line());
                continue;
            }
            Ledger.Execution before = first.putIfAbsent(e.job() + "|" + e.sled(), e);
            if (before != null) {
                out.add("job " + e.job() + " ran twice on sled " + e.sled() + ": pid " + before.pid() + " then pid "
                        + e.pid());
            }
        }
        return out;
    }

    /**
     * Status truth: a sled that said a job it ran was cancelled lied; so did one that said a job
     * exited 0 there that never ran there. A
     * {@code Skipped{Conflict}} speaks of one request at the position (the refused successor): it
     * lies only when the request it refused is the one that ran there, or the one it says it
     * holds is not.
     */
    static List<String> statusTruth(List<Ledger.Execution> ran, List<Observer.Claim> claims,
            Map<String, Workload.Submitted> requests) {
        Map<String, String> successorOfRun = new HashMap<>();
        for (Ledger.Execution e : ran) {
            Workload.Submitted r = requests.get(e.tag());
            successorOfRun.put(e.job() + "|" + e.sled(), r == null ? "?" : r.successor());
        }
        List<String> out = new ArrayList<>();
        for (Observer.Claim c : claims) {
            String key = c.job() + "|" + c.sled();
            boolean didRun = successorOfRun.containsKey(key);
            boolean conflict = c.status().equals("skipped") && c.refused() != null;
            if (conflict) {
                if (didRun && (successorOfRun.get(key).equals(c.refused()) || !successorOfRun.get(key).equals(
                        c.held()))) {
                    out.add("sled " + c.sled() + " said job " + c.job() + " " + c.said() + ", but the request that ran "
                            + "there has successor " + successorOfRun.get(key));
                }
                continue;
            }
            // Cancelled says the job never started here in any life (D-042). A skip's reasons
            // (already handled, superseded, below the floor, session ended) say it does not run
            // now, not that it never ran in an earlier life: the product's own status truth (the
            // simulator's checker) makes the same distinction.
            boolean neverStarted = c.status().equals("cancelled");
            if (didRun && neverStarted) {
                out.add("sled " + c.sled() + " said job " + c.job() + " " + c.said() + ", but it ran there");
            }
            if (!didRun && c.status().equals("stopped") && Integer.valueOf(0).equals(c.exitCode())) {
                out.add("sled " + c.sled() + " said job " + c.job() + " " + c.said() + ", but it never ran there");
            }
        }
        return out;
    }

    /** Every execution was of a request the operator signed (at that position), on a sled its target names. */
    static List<String> targeted(List<Ledger.Execution> ran, Map<String, Workload.Submitted> jobs,
            IntFunction<String> baseboard) {
        List<String> out = new ArrayList<>();
        for (Ledger.Execution e : ran) {
            Workload.Submitted s = jobs.get(e.tag());
            if (e.sled() < 0) {
                continue;
            }
            if (s == null || !s.id().equals(e.job())) {
                out.add("job " + e.job() + " (request " + e.tag() + ") ran on sled " + e.sled() + " but the operator "
                        + "never signed it");
            } else if (!s.target().equals("*") && !s.target().equals(baseboard.apply(e.sled()))) {
                out.add("job " + e.job() + " (target " + s.target() + ") ran on sled " + e.sled());
            }
        }
        return out;
    }

    /**
     * Untyped failures in a daemon's log: a stack trace or an uncaught exception. A typed failure
     * is said in one line with its kind; a trace means something was thrown that nothing expected.
     */
    static List<String> untypedFailures(Path log) throws IOException {
        List<String> out = new ArrayList<>();
        List<String> lines = read(log);
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("Exception in thread") || (l.startsWith("\tat ") && (i == 0
                    || !lines.get(i - 1).startsWith("\tat ")))) {
                out.add((i > 0 && l.startsWith("\tat ") ? lines.get(i - 1) + " / " : "") + l.strip());
            }
        }
        return out;
    }

    static List<String> tail(Path log, int count) throws IOException {
        List<String> lines = read(log);
        return lines.subList(Math.max(0, lines.size() - count), lines.size());
    }

    private static List<String> read(Path log) throws IOException {
        try {
            return Files.readAllLines(log, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            return List.of();
        }
    }
}
