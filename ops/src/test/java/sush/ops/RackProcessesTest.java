package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.projections.fixtures.Jobs;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Real daemons as separate JVMs on loopback (verification.md section 4): a 3-sled rack, jobs on
 * every sled, a cubby and a baseboard writing to a ledger outside the sleds' directories;
 * kill -9 of a sled while a job runs and between jobs; restarts, one with another peer list.
 */
class RackProcessesTest extends ProcessRack {
    private void start(int i) throws Exception {
        processes.add(RackAccess.start(dir, rack.sleds().get(i)));
        assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
    }

    private String submit(SignerKey key, String command, String target) throws Exception {
        JsonNode s = client(0).get("/sessions");
        SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(), command, target,
                false);
        String id = job.request().job().codephrase();
        client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        // Wait until sled 0 folded it: the next request takes the next position.
        Awaitility.await("sled 0 folded " + id).atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> !id.equals(client(0).get("/sessions").get("next_job").asString()));
        return id;
    }

    /** Whether a process of job {@code id} runs on this machine: its environment names the job. */
    private static boolean runs(String id) {
        byte[] marker = ("SUSH_JOB_ID=" + id + "\0").getBytes(StandardCharsets.UTF_8);
        return ProcessHandle.allProcesses().anyMatch(p -> {
            try {
                byte[] env = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "environ"));
                return indexOf(env, marker) >= 0;
            } catch (IOException gone) {
                return false; // gone meanwhile, or not ours to read
            }
        });
    }

    /** Where {@code needle} first occurs in {@code hay}; -1 if nowhere. */
    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (hay[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private void kill9(int i) throws Exception {
        ProcessHandle h = RackAccess.running(rack.sleds().get(i)).orElseThrow();
        h.destroyForcibly();
        h.onExit().get();
    }

    @Test
    void killNineNeverRunsAJobTwiceAndTheInterruptedJobReadsInterruptedEverywhere() throws Exception {
        rack = RackCommand.create(dir, 3, LocalRack.freePorts(3), sush.projections.fold.Ordering.CAUSAL);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        Path ledger = dir.resolve("ledger.txt");
        String line = "echo \"$SUSH_JOB_ID $(basename $(dirname $(dirname $(dirname $SUSH_JOB_OUTPUT_DIR))))\" >> " + ledger;
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        // The daemons run with the JVM options SUSH_DAEMON_JAVA_OPTS names (the build sets some).
        long pid = RackAccess.running(rack.sleds().get(0)).orElseThrow().pid();
        List<String> args = List.of(Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).split("\0"));
        for (String opt : RackCommand.daemonJavaOpts(System.getenv(RackCommand.DAEMON_JAVA_OPTS))) {
            assertTrue(args.indexOf(opt) > 0 && args.indexOf(opt) < args.indexOf("sush.ops.Main"), opt + " in " + args);
        }
        await("one universe", () -> {
            Set<String> n = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                try {
                    n.add(client(i).get("/version").get("network").asString());
                    if (client(i).get("/versions").get("sleds").size() < 3) {
                        return false;
                    }
                } catch (Client.Failure f) {
                    return false;
                }
            }
            return n.size() == 1;
        });
        String session = client(0).post("/sessions/start", Map.of()).get("session_id").asString();
        await("session active", () -> {
            try {
                return session.equals(client(2).get("/sessions").get("session_id").asString());
            } catch (Client.Failure f) {
                return false;
            }
        });
        String all = submit(key, line, "*");
        await("job on every sled", () -> statuses(0, all).values().stream().filter("stopped"::equals).count() == 3);
        String cubby = submit(key, line, "1");
        await("job on cubby 1", () -> "stopped".equals(statuses(0, cubby).get(rack.sleds().get(1).baseboard())));
        String board = submit(key, line, rack.sleds().get(2).baseboard());
        await("job on one baseboard", () -> "stopped".equals(statuses(0, board).get(rack.sleds().get(2).baseboard())));
        // kill -9 of sled 1 while a job runs on it.
        String slow = submit(key, "sleep 2; " + line, "*");
        String sled1 = rack.sleds().get(1).baseboard();
        await("the slow job started on sled 1", () -> "started".equals(statuses(0, slow).get(sled1)));
        kill9(1);
        // Restart it with another peer list: only sled 0.
        List<RackFile.SledEntry> sleds = new ArrayList<>(rack.sleds());
        RackFile.SledEntry s1 = sleds.get(1);
        sleds.set(1, new RackFile.SledEntry(s1.baseboard(), s1.cubby(), s1.gossip(), s1.api(), s1.m2(), s1.output(),
                Optional.of(List.of(rack.sleds().get(0).baseboard()))));
        rack.withSleds(sleds).write(dir.resolve("rack.json"));
        start(1);
        await("the interrupted job reads Interrupted on every sled", () -> {
            for (int i = 0; i < 3; i++) {
                if (!"interrupted".equals(statuses(i, slow).get(sled1))) {
                    return false;
                }
            }
            return true;
        });
        // Its peers change back live: SIGHUP re-reads the rack file, and the daemon lives on.
        rack.write(dir.resolve("rack.json"));
        long pid1 = RackAccess.running(rack.sleds().get(1)).orElseThrow().pid();
        new ProcessBuilder("kill", "-HUP", Long.toString(pid1)).start().waitFor();
        Path log1 = rack.sleds().get(1).output().getParent().resolve("daemon.log");
        await("peers reloaded", () -> {
            try {
                return Files.readString(log1).contains("peers and revoked certificates reloaded");
            } catch (java.io.IOException e) {
                return false;
            }
        });
        assertTrue(ProcessHandle.of(pid1).map(ProcessHandle::isAlive).orElse(false), "SIGHUP does not stop the daemon");
        // Later jobs still run, everywhere; then kill -9 between jobs and once more.
        String after = submit(key, line, "*");
        await("a later job on every sled", () -> statuses(0, after).values().stream().filter("stopped"::equals).count() == 3);
        kill9(2);
        start(2);
        String last = submit(key, line, "*");
        await("the last job on every sled", () -> statuses(0, last).values().stream().filter("stopped"::equals).count() == 3);
        // A graceful stop (SIGTERM) kills the running job and reports it before the daemon exits.
        String longJob = submit(key, "sleep 30", "0");
        String sled0 = rack.sleds().get(0).baseboard();
        await("the long job started on sled 0", () -> "started".equals(statuses(2, longJob).get(sled0)));
        ProcessHandle h0 = RackAccess.running(rack.sleds().get(0)).orElseThrow();
        h0.destroy();
        h0.onExit().get();
        await("the long job reads error (killed at shutdown) on sled 2", () -> "error".equals(statuses(2, longJob)
                .get(sled0)));
        // The orphaned slow job of the killed sled finishes on its own: no process of it is left.
        Awaitility.await("no process of " + slow + " left").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).until(() -> !runs(slow));
        List<String> lines = Files.readAllLines(ledger);
        assertEquals(new HashSet<>(lines).size(), lines.size(), "a job ran twice on a sled: " + lines);
        long runsOfSlow = lines.stream().filter(l -> l.startsWith(slow)).count();
        assertTrue(runsOfSlow <= 3, lines.toString());
        assertEquals(3 + 1 + 1 + 3 + 3, lines.size() - runsOfSlow, lines.toString());
    }
}
