package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fixtures.Jobs;
import sush.projections.job.JobMode;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Issue 19: kill -9 of the daemon running an interactive job: after its restart the job reads
 * Interrupted and never runs again (reattaching is never re-executing); later jobs still run.
 */
class InteractiveRestartTest extends ProcessRack {
    @Test
    void anInteractiveJobCutByKillNineIsInterruptedAndNeverRestarted() throws Exception {
        rack = RackCommand.create(dir, 2, LocalRack.freePorts(2), sush.projections.fold.Ordering.CAUSAL);
        for (int i = 0; i < 2; i++) {
            processes.add(RackAccess.start(dir, rack.sleds().get(i)));
            assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
        }
        await("one universe", () -> {
            try {
                return client(0).get("/versions").get("sleds").size() == 2
                        && client(1).get("/versions").get("sleds").size() == 2;
            } catch (Client.Failure f) {
                return false;
            }
        });
        String session = client(0).post("/sessions/start", Map.of()).get("session_id").asString();
        await("session active", () -> {
            try {
                return session.equals(client(1).get("/sessions").get("session_id").asString());
            } catch (Client.Failure f) {
                return false;
            }
        });
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        String sled1 = rack.sleds().get(1).baseboard();
        Path ledger = dir.resolve("ran.txt");
        JsonNode s = client(0).get("/sessions");
        SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(),
                "echo ran >> " + ledger + "; exec bash --norc", sled1, JobMode.INTERACTIVE);
        String id = job.request().job().codephrase();
        client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        await("the interactive job started on sled 1", () -> "started".equals(statuses(0, id).get(sled1)));
        await("it ran once", () -> lines(ledger) == 1);
        ProcessHandle h = RackAccess.running(rack.sleds().get(1)).orElseThrow();
        h.destroyForcibly();
        h.onExit().get();
        processes.add(RackAccess.start(dir, rack.sleds().get(1)));
        assertTrue(RackAccess.awaitApi(rack.sleds().get(1).api()));
        await("Interrupted on both sleds", () -> "interrupted".equals(statuses(0, id).get(sled1))
                && "interrupted".equals(statuses(1, id).get(sled1)));
        // Nothing to attach to: the restarted sled holds no terminal for it, and never ran it again.
        Client.Failure none = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class,
                () -> client(1).webSocket("/jobs/" + id + "/attach", new InteractiveJobTest.Screen()));
        assertEquals("not-attachable", none.code());
        // A later job runs (the interrupted one is behind the head), and the ledger still says once.
        JsonNode s2 = client(0).get("/sessions");
        SignedJob next = Jobs.at(key, s2.get("session_id").asString(), s2.get("next_job").asString(), "true", sled1,
                false);
        String nextId = next.request().job().codephrase();
        client(0).post("/jobs/" + nextId + "/start", SignedRequests.toJson(next));
        await("the next job ran on sled 1", () -> "stopped".equals(statuses(0, nextId).get(sled1)));
        assertEquals(1, lines(ledger), "the interactive job ran once");
    }

    private static int lines(Path p) {
        try {
            return Files.exists(p) ? Files.readAllLines(p).size() : 0;
        } catch (java.io.IOException e) {
            return -1;
        }
    }
}
