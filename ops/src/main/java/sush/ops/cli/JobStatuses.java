package sush.ops.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import sush.ops.wire.Conflict;
import sush.ops.wire.Event;
import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;
import sush.ops.wire.StatusReport;
import sush.ops.wire.Versions;
import sush.projections.id.JobId;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * A job's statuses as the CLI shows them: one line per sled, a table, whether all ended with exit 0,
 * and following a job until every targeted sled ended it (with each sled's verified output).
 */
final class JobStatuses {
    private JobStatuses() {
    }

    /**
     * Follows the event stream until every targeted sled (every sled reporting, if the target
     * is not given) has a terminal status; one line per sled as it changes.
     */
    /**
     * Follows {@code job} until every targeted sled ended it. {@code mine}, when the caller signed
     * the request, is its successor: a sled that reports a conflict refusing that request holds
     * another request at this position (ordered-sessions.md section 9), so its status there is not
     * this job's, and the job failed there.
     */
    static int waitFor(Global g, JobId job, String target, Optional<JobId> mine) throws Client.Failure {
        Client c = g.client();
        List<String> targeted = new ArrayList<>();
        for (Versions.Sled s : c.get("/versions", Versions.class).sleds()) {
            Sled sled = new Sled(Said.text(s.baseboard()), Said.number(s.cubby()));
            try {
                if (target == null || Target.parse(target).runsOn(sled)) {
                    targeted.add(sled.baseboard());
                }
            } catch (TargetException e) {
                throw new Client.Failure(2, "bad-target", e.getMessage());
            }
        }
        Map<String, SledStatus> latest = new TreeMap<>();
        String phrase = job.codephrase();
        PrintStream out = g.invocation().out();
        LiveLines live = new LiveLines(targeted, !g.json && g.invocation().console(), out);
        c.follow(data -> {
            Event ev = Json.read(data, Event.class);
            if (!phrase.equals(Said.text(ev.jobId()))) {
                return false;
            }
            String board = Said.text(ev.baseboard());
            SledStatus before = latest.get(board);
            boolean frozen = before != null && JobCommand.TERMINAL.contains(Said.text(before.status()));
            if (!frozen) {
                latest.put(board, ev.status());
                if (!g.json && (before == null || !Objects.equals(before.status(), ev.status().status()))) {
                    live.show(board, line(ev.status()));
                }
            }
            return !targeted.isEmpty() && targeted.stream().allMatch(b -> latest.containsKey(b)
                    && JobCommand.TERMINAL.contains(Said.text(latest.get(b).status())));
        });
        StatusReport answer = c.get("/jobs/" + phrase + "/status", StatusReport.class);
        Map<String, SledStatus> statuses = answer.statuses();
        List<String> conflicted = new ArrayList<>();
        (answer.conflicts() == null ? Map.<String, Conflict>of() : answer.conflicts()).forEach((board, conflict) -> {
            if (mine.map(m -> m.codephrase().equals(Said.text(conflict.refused()))).orElse(false)) {
                conflicted.add(board);
            }
        });
        if (!g.json) {
            printOutputs(g, phrase, statuses);
            for (String b : conflicted) {
                g.invocation().err().println("job " + phrase + " on " + b + ": conflict: that sled holds another "
                        + "request at this position; this one never runs there, and its status there is the other "
                        + "request's");
            }
        }
        if (g.json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("job_id", phrase);
            doc.put("statuses", statuses);
            if (!conflicted.isEmpty()) {
                doc.put("conflicts", conflicted);
            }
            out.println(Json.MAPPER.writeValueAsString(doc));
        }
        return allZero(statuses) && conflicted.isEmpty() ? 0 : 5;
    }

    /**
     * One line per targeted sled. On a terminal the lines are drawn once and redrawn in place as
     * statuses change (a line freezes at its terminal status); elsewhere each change is a line.
     * Drawn on {@code out}.
     */
    static final class LiveLines {
        private final List<String> sleds;
        private final Map<String, String> text = new LinkedHashMap<>();
        private final boolean redraw;
        private final PrintStream out;

        LiveLines(List<String> sleds, boolean redraw, PrintStream out) {
            this.sleds = sleds;
            this.redraw = redraw;
            this.out = out;
            sleds.forEach(b -> text.put(b, "queued"));
            if (redraw) {
                sleds.forEach(b -> out.println("  " + Client.printable(b) + "  queued"));
            }
        }

        void show(String board, String line) {
            if (!redraw || !text.containsKey(board)) {
                out.println("  " + Client.printable(board) + "  " + line);
                return;
            }
            text.put(board, line);
            StringBuilder b = new StringBuilder("\u001b[" + sleds.size() + "A");
            text.forEach((k, v) -> b.append("\u001b[2K  ").append(k).append("  ").append(v).append('\n'));
            out.print(b);
            out.flush();
        }
    }

    /** Each sled's stdout, fetched from that sled and verified against its status's hash. */
    private static void printOutputs(Global g, String job, Map<String, SledStatus> statuses) {
        PrintStream out = g.invocation().out();
        statuses.entrySet().forEach(e -> {
            if (e.getValue().stdoutSha3() == null) {
                return;
            }
            try {
                byte[] bytes = JobOutputs.verifiedOutput(g.client(), job, e.getKey(), false);
                out.println("--- " + e.getKey() + " (" + bytes.length + " bytes, hash verified)");
                out.print(new String(bytes, StandardCharsets.UTF_8));
            } catch (Client.Failure f) {
                out.println("--- " + e.getKey() + ": output not shown (" + f.getMessage() + ")");
            }
        });
    }

    /** One status as a line; every field from the rack is printed with its control characters escaped. */
    static String line(SledStatus s) {
        StringBuilder b = new StringBuilder(Said.text(s.status()));
        if (s.exitCode() != null) {
            b.append(" exit ").append(s.exitCode());
        }
        if (s.error() != null) {
            b.append(' ').append(s.error()).append(": ").append(Said.text(s.detail()));
        }
        if (s.reason() != null) {
            b.append(' ').append(s.reason());
            if (s.error() == null && s.detail() != null) {
                b.append(": ").append(Said.text(s.detail()));
            }
        }
        if (s.sledStartedAt() != null) {
            // The sled's own clock: shown as it said, labelled so, never compared across sleds.
            b.append("  (sled clock: started ").append(s.sledStartedAt());
            if (s.sledEndedAt() != null) {
                b.append(", ended ").append(s.sledEndedAt());
            }
            if (s.durationMs() != null) {
                b.append(String.format(Locale.ROOT, "; took %.3f s", s.durationMs() / 1000.0));
            }
            b.append(')');
        }
        return Client.printable(b.toString());
    }

    /** Statuses by sled, a line each; with {@code full}, each status's every field as its JSON. */
    static String render(Map<String, SledStatus> statuses, boolean full) {
        StringBuilder b = new StringBuilder();
        statuses.forEach((board, s) -> b.append(Client.printable(board)).append("  ")
                .append(full ? Json.MAPPER.writeValueAsString(s) : line(s)).append('\n'));
        return b.toString().stripTrailing();
    }

    static boolean allZero(Map<String, SledStatus> statuses) {
        if (statuses == null || statuses.isEmpty()) {
            return false;
        }
        for (SledStatus s : statuses.values()) {
            if (!"stopped".equals(s.status()) || Said.number(s.exitCode(), -1) != 0) {
                return false;
            }
        }
        return true;
    }
}
