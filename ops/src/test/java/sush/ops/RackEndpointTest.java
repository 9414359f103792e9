package sush.ops;

import sush.ops.wire.Json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.Client;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /rack} (D-035) when another sled cannot give its state: one that answers but refuses
 * the caller's token (it never heard of the login: gossip is cut between the two) is reachable
 * with the error it answered (the page draws it REFUSED). The serving sled's own entry is always
 * there. A sled that is gone (its port refuses) is {@code RackPageTest}'s, after a kill -9.
 */
class RackEndpointTest {
    @TempDir
    Path dir;

    @Test
    void aSledThatRefusesTheTokenIsReachableWithItsError() throws Exception {
        try (LocalRack rack = new LocalRack(dir, 2)) {
            rack.converge();
            String b0 = rack.rack.sleds().get(0).baseboard();
            String b1 = rack.rack.sleds().get(1).baseboard();
            Client first = rack.client(0);
            first.login();
            String known = first.credentials().readToken(System.currentTimeMillis() + 600_000).orElseThrow();
            await(() -> entry(rack, known, b1).path("version").path("baseboard").asString("").equals(b1));
            JsonNode both = entry(rack, known, b1);
            assertTrue(both.get("reachable").asBoolean(), both.toString());
            assertFalse(both.hasNonNull("error"), both.toString());
            assertTrue(both.get("boundary").get("trusted").asBoolean(), both.toString());

            // Gossip cut between the two: a new login reaches sled 0 alone.
            for (int i = 0; i < 2; i++) {
                rack.daemons.get(i).setPeers(Map.of(), Map.of());
            }
            for (int i = 0; i < 2; i++) {
                Client c = rack.client(i);
                Awaitility.await("sled " + i + " holds no link").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> c.probe("/ready").body().get("peers_connected").asInt() == 0);
            }
            Client second = LocalRack.clientOf(dir, rack.url(0));
            second.login();
            String fresh = second.credentials().readToken(System.currentTimeMillis() + 600_000).orElseThrow();
            assertEquals(401, get(rack.url(1) + "/version", fresh).statusCode(), "sled 1 never heard of the login");
            JsonNode refused = entry(rack, fresh, b1);
            assertTrue(refused.get("reachable").asBoolean(), refused.toString());
            assertTrue(refused.get("error").asString().startsWith("401"), refused.toString());
            assertFalse(refused.hasNonNull("version"), refused.toString());
            JsonNode mine = entry(rack, fresh, b0);
            assertTrue(mine.get("reachable").asBoolean() && !mine.hasNonNull("error"), mine.toString());

        }
    }

    private static JsonNode entry(LocalRack rack, String token, String board) throws Exception {
        HttpResponse<String> r = get(rack.url(0) + "/rack", token);
        assertEquals(200, r.statusCode(), r.body());
        for (JsonNode e : Json.MAPPER.readTree(r.body()).get("sleds")) {
            if (e.get("baseboard").asString().equals(board)) {
                return e;
            }
        }
        throw new AssertionError("no entry for " + board + ": " + r.body());
    }

    private static HttpResponse<String> get(String url, String token) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).header("Authorization",
                "SushRead " + token).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void await(java.util.concurrent.Callable<Boolean> done) throws Exception {
        Awaitility.await("not reached in 10 s").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).until(done);
    }
}
