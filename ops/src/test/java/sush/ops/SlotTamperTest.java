package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

import sush.ops.daemon.RackFile;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * Issue 22, on real daemons: a job that overwrites its sled's boundary slot makes the sled report
 * the change at once and refuse every later job for the rest of its life (fail closed), while
 * the other sled keeps running jobs.
 */
class SlotTamperTest extends TwoSledRack {
    @Test
    void aJobThatOverwritesASlotFileMakesItsSledReportItAndRefuseEveryLaterJob() throws Exception {
        JobTextPrivacyTest.ApiTestAccess.session();
        RackFile.SledEntry sled = rack.rack.sleds().get(0);
        Path slot = sled.m2().get(1).resolve("boundary");
        assertTrue(Files.exists(slot), slot.toString());
        assertTrue(rack.client(0).get("/boundary").get("trusted").asBoolean());

        SignedJob vandal = JobTextPrivacyTest.ApiTestAccess.next(rack.key, "head -c 64 /dev/urandom > " + slot,
                Integer.toString(sled.cubby()));
        String id = vandal.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(vandal));
        JsonNode boundary = await("the sled distrusts its slots").atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25))
                .until(() -> rack.client(0).get("/boundary"), b -> !b.get("trusted").asBoolean());
        assertFalse(boundary.get("trusted").asBoolean(), "the sled distrusts its slots: " + boundary);
        assertTrue(boundary.get("changed").asString().contains("changed by something other than this daemon"),
                boundary.toString());

        // Every later job targeting the sled is refused; the other sled runs its share.
        SignedJob later = JobTextPrivacyTest.ApiTestAccess.next(rack.key, "touch ran", "*");
        String lid = later.request().job().codephrase();
        rack.client(0).post("/jobs/" + lid + "/start", SignedRequests.toJson(later));
        JsonNode st = await("the later job ended on both sleds").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(25)).until(() -> statuses(lid), s -> s != null && s.size() == 2
                        && Set.of("stopped", "skipped", "error", "refused").contains(s.path(sled.baseboard())
                                .path("status").asString())
                        && s.path(rack.rack.sleds().get(1).baseboard()).path("status").asString().equals("stopped"));
        assertEquals("stopped", st.path(rack.rack.sleds().get(1).baseboard()).path("status").asString(), st.toString());
        assertNotEquals("stopped", st.path(sled.baseboard()).path("status").asString(), st.toString());
        assertNotEquals("started", st.path(sled.baseboard()).path("status").asString(), st.toString());
        assertFalse(Files.exists(sled.output().resolve("jobs").resolve(lid)), "nothing was launched on the sled");
    }

    private static JsonNode statuses(String job) throws Exception {
        try {
            return rack.client(0).get("/jobs/" + job + "/status").get("statuses");
        } catch (sush.ops.cli.Client.Failure f) {
            return null;
        }
    }
}
