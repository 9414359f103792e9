package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fixtures.Jobs;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Issue 22: under a 600-descriptor limit, 700 idle connections once made a job fail with
 * "boundary.tmp: Too many open files". The API keeps descriptors in reserve: the connections
 * past it are cut, and the job's commit and launch still open their files.
 */
class FdReserveTest extends ProcessRack {
    @Test
    void idleConnectionsCannotTakeTheDescriptorsTheLockerAndJobsNeed() throws Exception {
        boolean tool = Files.isExecutable(java.nio.file.Path.of("/usr/bin/prlimit"));
        if (!tool) {
            System.out.println("skipped: no prlimit on this machine (Debian package util-linux)");
        }
        Assumptions.assumeTrue(tool, "prlimit (util-linux)");
        rack = RackCommand.create(dir, 1, LocalRack.freePorts(1), sush.projections.fold.Ordering.CAUSAL);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        Process daemon = RackAccess.start(dir, rack.sleds().get(0));
        processes.add(daemon);
        assertTrue(RackAccess.awaitApi(rack.sleds().get(0).api()));
        Process limit = new ProcessBuilder("prlimit", "--pid", Long.toString(daemon.pid()), "--nofile=600:600")
                .redirectErrorStream(true).start();
        assertEquals(0, limit.waitFor(), new String(limit.getInputStream().readAllBytes()));
        String sid = client(0).post("/sessions/start", java.util.Map.of()).get("session_id").asString();

        String[] hp = rack.sleds().get(0).api().split(":");
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 700; i++) {
                idle.add(new Socket(hp[0], Integer.parseInt(hp[1])));
            }
            Thread.sleep(500);
            JsonNode s = client(0).get("/sessions");
            assertEquals(sid, s.get("session_id").asString());
            SignedJob job = Jobs.at(key, sid, s.get("next_job").asString(), "echo fine", "*", false);
            String id = job.request().job().codephrase();
            client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
            await("the job ends", () -> statuses(0, id).values().stream().anyMatch(v -> !v.equals("started")
                    && !v.equals("queued")));
            assertEquals("stopped", statuses(0, id).values().iterator().next(), statuses(0, id).toString());
            JsonNode st = client(0).get("/jobs/" + id + "/status").get("statuses").values().iterator().next();
            assertEquals(0, st.get("exit_code").asInt(), st.toString());
        } finally {
            for (Socket sock : idle) {
                sock.close();
            }
        }
    }
}
