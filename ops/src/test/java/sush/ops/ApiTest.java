package sush.ops;

import sush.ops.wire.SignedRequests;
import sush.ops.wire.Json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/** The HTTP API of a 2-sled rack in this JVM: requests, refusals that change nothing, the event stream. */
class ApiTest extends TwoSledRack {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static SignedJob next(SignerKey key, String command, String target) throws Exception {
        JsonNode s = rack.client(0).get("/sessions");
        return Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(), command, target, false);
    }

    static String session() throws Exception {
        String id = rack.client(0).post("/sessions/start", Map.of()).get("session_id").asString();
        // Active on both sleds (a job signed for it is screened by each), within 30 s.
        await("session " + id + " not active on both sleds within 30 s").atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                .until(() -> activeOn(0, id) && activeOn(1, id));
        return id;
    }

    private static boolean activeOn(int sled, String id) throws Exception {
        try {
            return id.equals(rack.client(sled).get("/sessions").path("session_id").asString(""));
        } catch (Client.Failure f) {
            return false;
        }
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return rack.client(0).raw("POST", path, body.getBytes(java.nio.charset.StandardCharsets.UTF_8), Map.of());
    }

    @Test
    void aJobRunsOnEveryTargetedSledAndItsOutputVerifies() throws Exception {
        session();
        SignedJob job = next(rack.key, "printf hello", "*");
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        JsonNode statuses = await("stopped on both sleds").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).ignoreException(Client.Failure.class) // not known yet
                .until(() -> rack.client(1).get("/jobs/" + id + "/status").get("statuses"), st -> st.size() == 2
                        && st.findValues("status").stream().allMatch(s -> s.asString().equals("stopped")));
        assertEquals(2, statuses.size(), statuses.toString());
        byte[] out = sush.ops.cli.JobCommandAccess.verifiedOutput(rack.client(1), id,
                rack.rack.sleds().get(1).baseboard(), false);
        assertEquals("hello", new String(out));
        HttpResponse<String> part = rack.client(1).raw("GET", "/jobs/" + id + "/output/stdout", new byte[0],
                Map.of("Range", "bytes=1-2"));
        assertEquals(206, part.statusCode());
        assertEquals("el", part.body());
        // RFC 9110 ranges (issue 22): a suffix, an end past the file, bad syntax ignored, past the end.
        String stdout = "/jobs/" + id + "/output/stdout";
        HttpResponse<String> suffix = rack.client(1).raw("GET", stdout, new byte[0], Map.of("Range", "bytes=-2"));
        assertEquals(206, suffix.statusCode());
        assertEquals("lo", suffix.body());
        assertEquals("bytes 3-4/5", suffix.headers().firstValue("Content-Range").orElse(""));
        HttpResponse<String> far = rack.client(1).raw("GET", stdout, new byte[0], Map.of("Range", "bytes=0-999999999999"));
        assertEquals(206, far.statusCode());
        assertEquals("hello", far.body());
        HttpResponse<String> plus = rack.client(1).raw("GET", stdout, new byte[0], Map.of("Range", "bytes=+1-3"));
        assertEquals(200, plus.statusCode());
        assertEquals("hello", plus.body());
        HttpResponse<String> past = rack.client(1).raw("GET", stdout, new byte[0], Map.of("Range", "bytes=5-9"));
        assertEquals(416, past.statusCode());
        assertEquals("bytes */5", past.headers().firstValue("Content-Range").orElse(""));
    }

    @Test
    void aHandlerThatThrowsAnswersATyped500ChangesNothingAndTheSledGoesOn() throws Exception {
        String before = session();
        java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean(true);
        sush.gossip.Entropy secure = sush.gossip.Entropy.secure();
        sush.gossip.Entropy faulty = into -> {
            if (broken.get()) {
                throw new IllegalStateException("injected: the entropy source failed");
            }
            secure.nextBytes(into);
        };
        reactor.netty.DisposableServer front = rack.daemons.get(0).serveApi("127.0.0.1", 0, faulty);
        try {
            Client frontClient = LocalRack.clientOf(dir, "http://127.0.0.1:" + front.port());
            byte[] start = "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            HttpResponse<String> r = frontClient.raw("POST", "/sessions/start", start, Map.of());
            assertEquals(500, r.statusCode(), r.body());
            JsonNode body = Json.MAPPER.readTree(r.body());
            assertEquals("internal", body.get("error").asString(), r.body());
            assertTrue(body.get("message").asString().contains("injected"), r.body());
            // Nothing changed: the same session is active on both sleds, and no sled halted (by
            // the time each folded what the other gossiped since).
            rack.awaitGossip(0, 1);
            rack.awaitGossip(1, 0);
            for (int k = 0; k < 2; k++) {
                assertEquals(before, rack.client(k).get("/sessions").get("session_id").asString());
                assertEquals(java.util.Optional.empty(), rack.daemons.get(k).runtime().failure());
            }
            // The same front serves again once its entropy does.
            assertEquals(200, frontClient.raw("GET", "/version", new byte[0], Map.of()).statusCode());
            broken.set(false);
            HttpResponse<String> ok = frontClient.raw("POST", "/sessions/start", start, Map.of());
            assertEquals(200, ok.statusCode(), ok.body());
        } finally {
            front.disposeNow();
        }
    }

    @Test
    void badRequestsGet4xxAndChangeNothing() throws Exception {
        session();
        SignedJob good = next(rack.key, "true", "*");
        String id = good.request().job().codephrase();
        // Garbage body, oversized body, bad codephrase.
        assertEquals(400, post("/jobs/" + id + "/start", "{garbage").statusCode());
        assertEquals(413, post("/jobs/" + id + "/start", "x".repeat(SignedRequests.MAX_BODY_BYTES + 1)).statusCode());
        assertEquals(400, post("/jobs/not-a-phrase/start", "{}").statusCode());
        // Wrong JSON types and bad base64 are a 400 naming the field, never coerced, never a 500 (issue 22).
        Map<String, Object> typed = new java.util.LinkedHashMap<>(SignedRequests.toJson(good));
        typed.put("concurrent", "yes");
        HttpResponse<String> notBool = post("/jobs/" + id + "/start", Json.MAPPER.writeValueAsString(typed));
        assertEquals(400, notBool.statusCode(), notBool.body());
        assertTrue(notBool.body().contains("concurrent"), notBool.body());
        typed.put("concurrent", false);
        typed.put("signature", "%%% not base64");
        HttpResponse<String> notB64 = post("/jobs/" + id + "/start", Json.MAPPER.writeValueAsString(typed));
        assertEquals(400, notB64.statusCode(), notB64.body());
        assertTrue(notB64.body().contains("signature"), notB64.body());
        typed.put("signature", 12);
        assertEquals(400, post("/jobs/" + id + "/start", Json.MAPPER.writeValueAsString(typed)).statusCode());
        for (String body : new String[] {"{\"client_nonce\":null}", "{\"client_nonce\":123}",
            "{\"client_nonce\":\"%%%\"}"}) {
            HttpResponse<String> r = post("/sessions/start", body);
            assertEquals(400, r.statusCode(), body + " -> " + r.body());
            assertTrue(r.body().contains("client_nonce"), r.body());
        }
        // A bad signature, and a key nobody trusts.
        Map<String, Object> forged = new java.util.LinkedHashMap<>(SignedRequests.toJson(good));
        byte[] sig = good.signature();
        sig[0] ^= 1;
        forged.put("signature", java.util.Base64.getEncoder().encodeToString(sig));
        HttpResponse<String> bad = post("/jobs/" + id + "/start", Json.MAPPER.writeValueAsString(forged));
        assertEquals(403, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("bad-signature"), bad.body());
        HttpResponse<String> unknown = post("/jobs/" + id + "/start",
                Json.MAPPER.writeValueAsString(SignedRequests.toJson(Signers.STRANGER.sign(good.request()))));
        assertEquals(403, unknown.statusCode(), unknown.body());
        assertTrue(unknown.body().contains("unknown-key"), unknown.body());
        // A request for another session than the active one.
        String old = rack.client(0).get("/sessions").get("session_id").asString();
        session();
        HttpResponse<String> wrong = post("/jobs/" + id + "/start", Json.MAPPER.writeValueAsString(
                SignedRequests.toJson(good)));
        assertEquals(409, wrong.statusCode(), wrong.body());
        assertTrue(!old.equals(rack.client(0).get("/sessions").get("session_id").asString()));
        rack.awaitGossip(0, 1);
        Client.Failure none = assertThrows(Client.Failure.class, () -> rack.client(1).get("/jobs/" + id + "/status"));
        assertEquals("unknown-job", none.code(), "nothing about the refused job reached any sled");
    }

    @Test
    void theEventStreamResumesAfterLastEventId() throws Exception {
        session();
        SignedJob job = next(rack.key, "true", "0");
        rack.client(0).post("/jobs/" + job.request().job().codephrase() + "/start", SignedRequests.toJson(job));
        List<String> ids = new ArrayList<>();
        rack.client(0).follow(ev -> {
            ids.add(ev.toString());
            return ev.path("job_id").asString().equals(job.request().job().codephrase())
                    && ev.path("status").asString().equals("stopped");
        });
        assertTrue(ids.size() >= 2, ids.toString());
        HttpResponse<java.io.InputStream> r = rack.client(0).raw("GET", "/events", new byte[0], Map.of("Last-Event-ID",
                "1"), HttpResponse.BodyHandlers.ofInputStream());
        try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(r.body()))) {
            String first = in.readLine();
            assertEquals("id: 2", first, "resumes right after the last id seen");
        }
    }
}
