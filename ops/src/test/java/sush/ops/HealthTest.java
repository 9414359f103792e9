package sush.ops;

import sush.ops.wire.Version;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.Client;
import sush.ops.daemon.RackFile;
import tools.jackson.databind.JsonNode;

/** Issue 16: {@code /health}, {@code /ready} and {@code sush status} on real daemons. */
class HealthTest {
    @TempDir
    Path dir;

    /** The probe of {@code path} once it answers {@code status} (10 s at most). */
    private static Client.Probe await(Client c, String path, int status) throws Exception {
        return Awaitility.await(path + " answers " + status).atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(25)).until(() -> c.probe(path), p -> p.status() == status);
    }

    @Test
    void aConvergedRackIsHealthyAndReadyAndSaysWhyNotWhenItIsNot() throws Exception {
        try (LocalRack rack = new LocalRack(dir, 2)) {
            rack.converge();
            Client c = rack.client(0);
            Client.Probe health = c.probe("/health");
            assertEquals(200, health.status(), health.body().toString());
            assertEquals("ok", health.body().get("status").asString());
            Client.Probe ready = await(c, "/ready", 200);
            assertEquals(200, ready.status(), ready.body().toString());
            JsonNode r = ready.body();
            assertTrue(r.get("ready").asBoolean());
            assertTrue(r.get("store_trusted").asBoolean());
            assertEquals(1, r.get("peers_expected").asInt());
            assertEquals(1, r.get("peers_connected").asInt());
            assertEquals(0, r.get("pending_launches").asInt());
            assertTrue(r.get("set_fill").asDouble() > 0 && r.get("set_fill").asDouble() < 0.01, r.toString());

            JsonNode version = c.get("/version");
            assertEquals(Version.VERSION, version.get("version").asString(), "the build's version, defined once");
            assertTrue(version.get("software").asString().startsWith(Version.VERSION + "+"), version.toString());
            assertEquals(Version.COMMIT, version.get("commit").asString());
            assertTrue(Version.VERSION.matches("\\d+\\.\\d+\\.\\d+.*"), Version.VERSION);

            CliRun status = CliRun.of("status", "--url", rack.url(0));
            assertEquals(0, status.exit(), status.out() + status.err());
            assertTrue(status.out().contains("OK ready"), status.out());

            // No peer: the other sled's daemon is gone.
            rack.daemons.remove(1).close();
            Client.Probe alone = await(c, "/ready", 503);
            assertEquals(503, alone.status(), alone.body().toString());
            assertTrue(alone.body().get("reasons").toString().contains("no peer connected of 1"), alone.body().toString());
            assertEquals(200, c.probe("/health").status(), "alone is not unhealthy");
            CliRun notReady = CliRun.of("status", "--url", rack.url(0));
            assertEquals(1, notReady.exit(), notReady.out());
            assertTrue(notReady.out().contains("NOT READY"), notReady.out());

            // An untrusted store: something other than the daemon rewrote a slot file.
            RackFile.SledEntry sled = rack.rack.sleds().get(0);
            Files.write(sled.m2().get(0).resolve("boundary"), new byte[] {1, 2, 3});
            Client.Probe untrusted = Awaitility.await("the store untrusted").atMost(Duration.ofSeconds(10))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25))
                    .until(() -> c.probe("/ready"), p -> !p.body().get("store_trusted").asBoolean());
            assertEquals(503, untrusted.status());
            assertFalse(untrusted.body().get("store_trusted").asBoolean(), untrusted.body().toString());
            assertTrue(untrusted.body().get("reasons").toString().contains("not trusted"), untrusted.body().toString());
        }
    }
}
