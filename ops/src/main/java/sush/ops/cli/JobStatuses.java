package sush.ops.cli;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import sush.ops.wire.Json;
import sush.projections.id.JobId;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;
import tools.jackson.databind.JsonNode;

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
        for (JsonNode s : c.get("/versions").get("sleds")) {
            Sled sled = new Sled(s.get("baseboard").asString(), s.get("cubby").asInt());
            try {
                if (target == null || Target.parse(target).runsOn(sled)) {
                    targeted.add(sled.baseboard());
                }
            } catch (TargetException e) {
                throw new Client.Failure(2, "bad-target", e.getMessage());
            }
        }
        Map<String, JsonNode> latest = new TreeMap<>();
        String phrase = job.codephrase();
        LiveLines live = new LiveLines(targeted, !g.json && System.console() != null);
        c.follow(ev -> {
            if (!phrase.equals(ev.path("job_id").asString())) {
                return false;
            }
            String board = ev.path("baseboard").asString();
            JsonNode before = latest.get(board);
            boolean frozen = before != null && JobCommand.TERMINAL.contains(before.path("status").asString());
            if (!frozen) {
                latest.put(board, ev);
                if (!g.json && (before == null || !before.path("status").equals(ev.path("status")))) {
                    live.show(board, line(ev));
                }
            }
            return !targeted.isEmpty() && targeted.stream().allMatch(b -> latest.containsKey(b)
                    && JobCommand.TERMINAL.contains(latest.get(b).path("status").asString()));
        });
        JsonNode answer = c.get("/jobs/" + phrase + "/status");
        JsonNode statuses = answer.get("statuses");
        List<String> conflicted = new ArrayList<>();
        answer.path("conflicts").properties().forEach(e -> {
            if (mine.map(m -> m.codephrase().equals(e.getValue().path("refused").asString())).orElse(false)) {
                conflicted.add(e.getKey());
            }
        });
        if (!g.json) {
            printOutputs(g, phrase, statuses);
            for (String b : conflicted) {
                System.err.println("job " + phrase + " on " + b + ": conflict: that sled holds another request at this "
                        + "position; this one never runs there, and its status there is the other request's");
            }
        }
        if (g.json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("job_id", phrase);
            doc.put("statuses", statuses);
            if (!conflicted.isEmpty()) {
                doc.put("conflicts", conflicted);
            }
            System.out.println(Json.MAPPER.writeValueAsString(doc));
        }
        return allZero(statuses) && conflicted.isEmpty() ? 0 : 5;
    }

    /**
     * One line per targeted sled. On a terminal the lines are drawn once and redrawn in place as
     * statuses change (a line freezes at its terminal status); elsewhere each change is a line.
     */
    static final class LiveLines {
        private final List<String> sleds;
        private final Map<String, String> text = new LinkedHashMap<>();
        private final boolean redraw;

        LiveLines(List<String> sleds, boolean redraw) {
            this.sleds = sleds;
            this.redraw = redraw;
            sleds.forEach(b -> text.put(b, "queued"));
            if (redraw) {
                sleds.forEach(b -> System.out.println("  " + Client.printable(b) + "  queued"));
            }
        }

        void show(String board, String line) {
            if (!redraw || !text.containsKey(board)) {
                System.out.println("  " + Client.printable(board) + "  " + line);
                return;
            }
            text.put(board, line);
            StringBuilder b = new StringBuilder("\u001b[" + sleds.size() + "A");
            text.forEach((k, v) -> b.append("\u001b[2K  ").append(k).append("  ").append(v).append('\n'));
            System.out.print(b);
            System.out.flush();
        }
    }

    /** Each sled's stdout, fetched from that sled and verified against its status's hash. */
    private static void printOutputs(Global g, String job, JsonNode statuses) {
        statuses.properties().forEach(e -> {
            if (!e.getValue().has("stdout_sha3")) {
                return;
            }
            try {
                byte[] out = JobOutputs.verifiedOutput(g.client(), job, e.getKey(), false);
                System.out.println("--- " + e.getKey() + " (" + out.length + " bytes, hash verified)");
                System.out.print(new String(out, StandardCharsets.UTF_8));
            } catch (Client.Failure f) {
                System.out.println("--- " + e.getKey() + ": output not shown (" + f.getMessage() + ")");
            }
        });
    }

    /** One status as a line; every field from the rack is printed with its control characters escaped. */
    static String line(JsonNode s) {
        StringBuilder b = new StringBuilder(s.path("status").asString());
        if (s.has("exit_code")) {
            b.append(" exit ").append(s.get("exit_code").asInt());
        }
        if (s.has("error")) {
            b.append(' ').append(s.get("error").asString()).append(": ").append(s.path("detail").asString());
        }
        if (s.has("reason")) {
            b.append(' ').append(s.get("reason").asString());
        }
        if (s.has("sled_started_at")) {
            // The sled's own clock: shown as it said, labelled so, never compared across sleds.
            b.append("  (sled clock: started ").append(s.get("sled_started_at").asString());
            if (s.has("sled_ended_at")) {
                b.append(", ended ").append(s.get("sled_ended_at").asString());
            }
            if (s.has("duration_ms")) {
                b.append(String.format(Locale.ROOT, "; took %.3f s", s.get("duration_ms").asLong() / 1000.0));
            }
            b.append(')');
        }
        return Client.printable(b.toString());
    }

    static String render(JsonNode statuses, boolean full) {
        StringBuilder b = new StringBuilder();
        statuses.properties().forEach(e -> b.append(Client.printable(e.getKey())).append("  ")
                .append(full ? e.getValue().toString() : line(e.getValue())).append('\n'));
        return b.toString().stripTrailing();
    }

    static boolean allZero(JsonNode statuses) {
        if (statuses == null || statuses.isEmpty()) {
            return false;
        }
        for (JsonNode s : statuses) {
            if (!"stopped".equals(s.path("status").asString()) || s.path("exit_code").asInt(-1) != 0) {
                return false;
            }
        }
        return true;
    }
}
