package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import sush.ops.daemon.RackFile;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * Issue 22, on real daemons: a job's child that left its process group (setsid) is killed within
 * 5 s of the operator's stop, the job ends as stopped by the operator saying what else it
 * killed, and the chain moves on; the sled says how it contains jobs.
 */
class JobContainmentTest extends TwoSledRack {
    @Test
    void anEscapedChildDiesWithinFiveSecondsOfTheStopAndTheNextJobRuns() throws Exception {
        String mechanism = rack.client(0).get("/version").get("containment").asString();
        assertTrue(mechanism.startsWith("cgroup2 /") || mechanism.equals("marker"), mechanism);
        JobTextPrivacyTest.ApiTestAccess.session();
        RackFile.SledEntry sled = rack.rack.sleds().get(0);
        String target = Integer.toString(sled.cubby());
        SignedJob job = JobTextPrivacyTest.ApiTestAccess.next(rack.key,
                "setsid sleep 35 & echo $! > child.pid; sleep 30", target);
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        Path pidFile = sled.output().resolve("jobs").resolve(id).resolve("child.pid");
        await("the child's pid written").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(25))
                .until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long child = Long.parseLong(Files.readString(pidFile).trim());
        assertTrue(alive(child), "the escaped child runs");

        long t0 = System.nanoTime();
        rack.client(0).post("/jobs/" + id + "/stop", Map.of());
        Duration left = Duration.ofSeconds(5).minusNanos(System.nanoTime() - t0);
        JsonNode st = await("ended within 5 s of the stop").atMost(left).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(25)).until(() -> status(id, sled.baseboard()),
                        s -> s != null && !s.path("status").asString().equals("started"));
        assertEquals("error", st.path("status").asString(), "ended within 5 s of the stop: " + st);
        assertTrue(st.toString().contains("stopped by an operator; also killed 1 process it started"), st.toString());
        assertFalse(alive(child), "the escaped child is dead");
        assertTrue(Files.readString(pidFile.resolveSibling("leftovers")).startsWith(child + " sleep 35"));

        // The chain moved on: the next job runs and ends at once.
        SignedJob next = JobTextPrivacyTest.ApiTestAccess.next(rack.key, "ps -e -o pid=", target);
        String nid = next.request().job().codephrase();
        rack.client(0).post("/jobs/" + nid + "/start", SignedRequests.toJson(next));
        JsonNode ns = await("the next job stopped").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(25)).until(() -> status(nid, sled.baseboard()),
                        s -> s != null && s.path("status").asString().equals("stopped"));
        assertEquals("stopped", ns.path("status").asString(), String.valueOf(ns));
        // A job still sees the host's processes: the daemon (this JVM) among them.
        String ps = Files.readString(sled.output().resolve("jobs").resolve(nid).resolve("stdout"));
        assertTrue(ps.lines().map(String::strip).anyMatch(p -> p.equals(Long.toString(ProcessHandle.current().pid()))),
                "ps -e lists the daemon");
    }

    private static JsonNode status(String job, String baseboard) throws Exception {
        try {
            return rack.client(0).get("/jobs/" + job + "/status").get("statuses").get(baseboard);
        } catch (sush.ops.cli.Client.Failure f) {
            return null; // not known yet
        }
    }

    /** Whether process {@code pid} is still alive (not gone, not a zombie) after 2 s of waiting for its end. */
    private static boolean alive(long pid) {
        try {
            await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> ended(pid));
            return false;
        } catch (ConditionTimeoutException stillAlive) {
            return true;
        }
    }

    /** Whether process {@code pid} is gone or a zombie. */
    private static boolean ended(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
        } catch (IOException e) {
            return true;
        }
    }
}
