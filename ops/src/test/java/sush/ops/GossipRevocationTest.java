package sush.ops;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.net.RackCa;
import sush.ops.cli.Client;

/** A revoked sled (security.md section 1): its links close on the reload, and it cannot come back. */
class GossipRevocationTest {
    @TempDir
    Path dir;

    @Test
    void aRevokedSledsLinksCloseAndItIsRefusedFromThenOn() throws Exception {
        try (LocalRack rack = new LocalRack(dir, 2)) {
            rack.converge();
            Path cert = rack.rack.tls().orElseThrow().sledDirs().get(rack.rack.sleds().get(1).baseboard())
                    .resolve(RackCa.SLED_CERT);
            long refusedBefore = rack.daemons.get(0).refusedHandshakes();
            RackCa.revoke(dir, cert);
            int closed = rack.daemons.get(0).reloadRevocations() + rack.daemons.get(1).reloadRevocations();
            assertTrue(closed >= 1, "the revoked sled's link closed (" + closed + ")");
            // What sled 0 learns from now on never reaches sled 1: every redial is refused.
            String session = rack.client(0).post("/sessions/start", Map.of())
                    .get("session_id").asString();
            // Two redials since the start, each refused: the session had its chances to cross.
            long refusedAtStart = rack.daemons.get(0).refusedHandshakes();
            await("two redials refused since the start").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> rack.daemons.get(0).refusedHandshakes() >= refusedAtStart + 2);
            boolean reached;
            try {
                reached = session.equals(rack.client(1).get("/sessions").get("session_id").asString());
            } catch (Client.Failure f) {
                reached = false;
            }
            assertEquals(false, reached, "a message crossed to the revoked sled");
            assertTrue(rack.daemons.get(0).refusedHandshakes() > refusedBefore,
                    "sled 0 refused the revoked certificate on redial");
        }
    }
}
