package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.pipeline.exec.Outflow;
import sush.projections.fixtures.Jobs;
import sush.projections.job.JobMode;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * Issue 19: a streaming job's stdout goes to its one client as it is produced and is never
 * stored; 50 MB arrive whole and match the status's hash; a slow client makes the job wait
 * with at most the outflow's bound held on the sled; a client going away ends the job naming it.
 */
class StreamingJobTest extends TwoSledRack {
    private static SignedJob streaming(String command, String target) throws Exception {
        JsonNode s = rack.client(0).get("/sessions");
        return Jobs.at(rack.key, s.get("session_id").asString(), s.get("next_job").asString(), command, target,
                JobMode.STREAMING);
    }

    private static String start(SignedJob job) throws Exception {
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        // Gossiped to sled 1, committed there (two slots, fsynced) and started: up to 30 s on a
        // loaded machine whose disk stalls.
        await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25))
                .untilAsserted(() -> assertTrue(rack.daemons.get(1).launcher().outflow(job.request().job()).isPresent(),
                        "job " + id + " started on sled 1 within 30 s"));
        return id;
    }

    /** The stream of job {@code id}, taken by the starter at the sled running it. */
    private static HttpResponse<InputStream> receive(String id) throws Exception {
        HttpResponse<InputStream> r = rack.client(1).raw("GET", "/jobs/" + id + "/stream", new byte[0], Map.of(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, r.statusCode());
        return r;
    }

    private static JsonNode endOf(String id, String sled) throws Exception {
        return await("no end of " + id).atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).ignoreException(Client.Failure.class) // not yet
                .until(() -> rack.client(0).get("/jobs/" + id + "/status").get("statuses").get(sled),
                        st -> st != null && !st.path("status").asString().equals("started"));
    }

    @Test
    void fiftyMegabytesArriveWholeAndASlowClientHoldsTheJobNotTheSledsMemory() throws Exception {
        ApiTest.session();
        String sled = rack.rack.sleds().get(1).baseboard();
        SignedJob job = streaming("head -c 50000000 /dev/urandom", sled);
        String id = start(job);
        Outflow flow = rack.daemons.get(1).launcher().outflow(job.request().job()).orElseThrow();
        HttpResponse<InputStream> r = receive(id);
        // A second client is refused: the stream has one.
        HttpResponse<String> second = rack.client(1).raw("GET", "/jobs/" + id + "/stream", new byte[0], Map.of());
        assertEquals(409, second.statusCode(), second.body());
        MessageDigest d = sush.projections.id.Hashes.sha3();
        long got = 0;
        long maxHeld = 0;
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = r.body()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                d.update(buf, 0, n);
                got += n;
                if (got < 8_000_000 && got % (1 << 20) < n) {
                    // Slow: the job must wait, with at most the bound held here.
                    Thread.sleep(150);
                    maxHeld = Math.max(maxHeld, flow.buffered());
                }
            }
        }
        assertEquals(50_000_000, got);
        assertTrue(maxHeld <= (long) Outflow.MAX_CHUNKS * 64 * 1024, "held " + maxHeld);
        assertTrue(maxHeld > 0, "the job kept producing up to the bound while the client slept");
        JsonNode end = endOf(id, sled);
        assertEquals("stopped", end.path("status").asString(), end.toString());
        assertEquals(0, end.path("exit_code").asInt());
        assertEquals(50_000_000, end.path("stdout_bytes").asLong());
        assertEquals(HexFormat.of().formatHex(d.digest()), end.path("stdout_sha3").asString());
        // Not stored: the sled serves none of it.
        HttpResponse<String> stored = rack.client(0).raw("GET", "/jobs/" + id + "/output/stdout?sled=" + sled,
                new byte[0], Map.of());
        assertEquals(404, stored.statusCode());
        assertTrue(stored.body().contains("not-stored"), stored.body());
    }

    @Test
    void aClientGoingAwayEndsTheJobNamingIt() throws Exception {
        ApiTest.session();
        String sled = rack.rack.sleds().get(1).baseboard();
        SignedJob job = streaming("yes sush", sled);
        String id = start(job);
        HttpResponse<InputStream> r = receive(id);
        InputStream in = r.body();
        assertTrue(in.readNBytes(100_000).length == 100_000);
        in.close();
        JsonNode end = endOf(id, sled);
        assertEquals("error", end.path("status").asString(), end.toString());
        assertTrue(end.path("detail").asString().contains("the streaming client went away"), end.toString());
    }

    /**
     * Issue 35: an output that fits the sled's queue and ends before its client attaches is
     * kept for that client, not dropped while the status vouches for its bytes.
     */
    @Test
    void aSmallOutputThatEndsBeforeItsClientAttachesStillReachesIt() throws Exception {
        ApiTest.session();
        String sled = rack.rack.sleds().get(1).baseboard();
        SignedJob job = streaming("echo hello", sled);
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        JsonNode end = endOf(id, sled);
        assertEquals("stopped", end.path("status").asString(), end.toString());
        assertEquals(6, end.path("stdout_bytes").asLong(), end.toString());
        HttpResponse<InputStream> r = receive(id);
        try (InputStream in = r.body()) {
            assertEquals("hello\n", new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        }
        // Read once: the sled forgets it then.
        await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertTrue(rack.daemons.get(1).launcher().outflow(job.request().job()).isEmpty()));
    }
}
