package sush.ops;

import sush.ops.wire.SignedRequests;
import sush.ops.wire.Json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import sush.ops.daemon.Logs;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/** Issue 16: a job leaves its log lines (JSON lines that parse) and its metrics on real daemons. */
class ObservabilityTest extends TwoSledRack {
    private static double metric(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " ([0-9.eE+-]+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    @Test
    void aJobLeavesJsonLogLinesWithoutItsCommandAndItsMetrics() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        String secret = "echo observability-SECRET-text-42";
        String id;
        try {
            System.setOut(new PrintStream(captured, true));
            Logs.configure(Logs.Format.JSON, Logs.levels("sush.sled=INFO"));
            JobTextPrivacyTest.ApiTestAccess.session();
            SignedJob job = JobTextPrivacyTest.ApiTestAccess.next(rack.key, secret, "*");
            id = job.request().job().codephrase();
            rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
            // Both sleds' endings known to sled 0 (whose metrics and statuses are read below): the
            // first "ended" line logged may be sled 1's while sled 0 still waits on its commit.
            await("both sleds' endings known to sled 0").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(25)).until(() -> bothStopped(id));
            // Each sled logged the job's ending, the last of its lines about it.
            Pattern ending = Pattern.compile(Pattern.quote("ended " + id + ": stopped 0"));
            await("both sleds logged the ending").atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(25))
                    .until(() -> ending.matcher(captured.toString()).results().count() >= 2);
        } finally {
            System.setOut(out);
            Logs.cli();
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String line : captured.toString().split("\n")) {
            if (!line.isBlank()) {
                lines.add(SignedRequestsAccess.json(line)); // every line is one JSON object
            }
        }
        List<String> messages = lines.stream().map(n -> n.path("formattedMessage").asString()).toList();
        for (String expected : new String[] {"committed " + id + " as record ", "launched " + id, "ended " + id
                + ": stopped 0"}) {
            assertTrue(messages.stream().anyMatch(m -> m.startsWith(expected)), expected + " in " + messages);
        }
        assertTrue(lines.stream().anyMatch(n -> "sush.sled".equals(n.path("loggerName").asString())
                && "INFO".equals(n.path("level").asString())), lines.toString());
        assertFalse(captured.toString().contains("SECRET"), "no job command text in the log");

        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(rack.url(0)
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        String text = r.body();
        assertTrue(metric(text, "sush_launches_total") >= 1, text);
        assertTrue(metric(text, "sush_commit_seconds_count") >= 1, "commit latency histogram");
        assertTrue(text.contains("sush_commit_seconds_bucket{"), "a histogram with buckets");
        assertTrue(metric(text, "sush_fsync_seconds_count") >= 4, "two slots, file and directory each");
        assertTrue(metric(text, "sush_endings_total{status=\"stopped\"}") >= 1, text);
        assertTrue(text.contains("sush_admissions_total{rule="), text);
        assertTrue(metric(text, "sush_gossip_frames_total{kind=\"push\"}") >= 1, text);
        assertEquals(1, metric(text, "sush_links"), text);
        assertTrue(metric(text, "sush_gossip_messages") > 0, text);
        assertTrue(metric(text, "sush_journal_bytes") > 0, text);
        // Issue 18: each sled's status carries its own clock's start and end, and the duration.
        JsonNode statuses = rack.client(0).get("/jobs/" + id + "/status").get("statuses");
        assertTrue(statuses.size() >= 1, statuses.toString());
        for (JsonNode st : statuses) {
            java.time.Instant started = java.time.Instant.parse(st.get("sled_started_at").asString());
            java.time.Instant ended = java.time.Instant.parse(st.get("sled_ended_at").asString());
            assertFalse(ended.isBefore(started), st.toString());
            assertTrue(st.get("duration_ms").asLong() >= 0 && st.get("duration_ms").asLong() < 60_000, st.toString());
            assertTrue(Math.abs(java.time.Duration.between(started, java.time.Instant.now()).toMinutes()) < 5);
            assertTrue(sush.ops.cli.JobCommandAccess.line(st).contains("(sled clock: started " + started), st.toString());
        }
        assertEquals(0, metric(text, "sush_pending_launches"));
        // Issue 39: the chain's fill and what the set forgot, beside the set's fill.
        double chainFill = metric(text, "sush_chain_fill_ratio");
        assertTrue(chainFill > 0 && chainFill < 0.01, "a session of a few jobs: " + chainFill);
        assertEquals(0, metric(text, "sush_gossip_forgotten"), text);
        assertTrue(metric(text, "sush_stores_coalesced_total") >= 0, "stores taken together (D-036): " + text);
        assertTrue(text.contains("jvm_memory_used_bytes{"), "JVM metrics");
        assertTrue(text.contains("reactor_netty_http_server_"), "Reactor Netty's server metrics");
        assertFalse(text.contains("SECRET"));
    }

    private static boolean bothStopped(String id) {
        try {
            JsonNode statuses = rack.client(0).get("/jobs/" + id + "/status").path("statuses");
            int stopped = 0;
            for (JsonNode st : statuses) {
                stopped += "stopped".equals(st.path("status").asString("")) && st.hasNonNull("sled_ended_at") ? 1 : 0;
            }
            return stopped == 2;
        } catch (sush.ops.cli.Client.Failure f) {
            return false; // no status yet
        }
    }

    /** Jackson, as the rest of ops reads JSON. */
    static final class SignedRequestsAccess {
        static JsonNode json(String line) {
            return Json.MAPPER.readTree(line);
        }
    }
}
