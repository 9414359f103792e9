package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fixtures.Jobs;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Real daemons as separate JVMs on loopback: a burn replayed after a hard restart must not move
 * a resumed chain head back (at-most-once.md section 2: "after a restart, nothing before the
 * resumed head is known to be unstarted, so a replayed or re-sent burn behind it is always
 * ignored").
 *
 * <p>A 3-sled rack; sled Y (2) is cut off from X (0) and Z (1) by peer lists applied live
 * (SIGHUP). J1 targets only Y and never reaches it; the starter burns J1's position. K2 (at
 * afterBurn(J1)) and K3 target X and run there. X loses its output directory (a RAM disk lost at
 * restart), is killed with kill -9 and started again on the same M.2 slots; it resumes at
 * next(K3) from its boundary record and replays the session from Z. Nothing may launch again on
 * X: every job appends a line to a ledger outside the sleds' directories, and X's new output
 * directory and journal show any launch of its new life.
 */
class RackBurnRestartTest extends ProcessRack {
    private static final int X = 0;
    private static final int Z = 1;
    private static final int Y = 2;

    private String board(int i) {
        return rack.sleds().get(i).baseboard();
    }

    private void launch(int i) throws IOException {
        processes.add(RackAccess.start(dir, rack.sleds().get(i)));
    }

    private void awaitApi(int i) {
        assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
    }

    private Optional<JsonNode> get(int i, String path) {
        try {
            return Optional.of(client(i).get(path));
        } catch (Client.Failure f) {
            return Optional.empty();
        }
    }

    /** Whether sled {@code i} holds no launch pending or running, as its {@code /ready} says. */
    private boolean idle(int i) {
        try {
            JsonNode ready = client(i).probe("/ready").body();
            return ready.path("pending_launches").asInt(-1) == 0 && ready.path("running").asInt(-1) == 0;
        } catch (Client.Failure f) {
            return false;
        }
    }

    private String nextJob(int i) {
        return get(i, "/sessions").map(s -> s.path("next_job").asString()).orElse("");
    }

    private String submit(SignerKey key, String command, String target) throws Exception {
        JsonNode s = client(X).get("/sessions");
        SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(), command, target,
                false);
        String id = job.request().job().codephrase();
        client(X).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        // Wait until sled X folded it: the next request takes the next position.
        await("sled X folded job " + id, () -> !id.equals(nextJob(X)));
        return id;
    }

    private static boolean logContains(Path log, String text) {
        try {
            return Files.readString(log).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** Sets each sled's peer list in rack.json (empty Optional: every other sled). */
    private void writePeers(List<Optional<List<String>>> peers) throws IOException {
        List<RackFile.SledEntry> sleds = new ArrayList<>();
        for (int i = 0; i < rack.sleds().size(); i++) {
            RackFile.SledEntry s = rack.sleds().get(i);
            sleds.add(new RackFile.SledEntry(s.baseboard(), s.cubby(), s.gossip(), s.api(), s.m2(), s.output(),
                    peers.get(i)));
        }
        rack.withSleds(sleds).write(dir.resolve("rack.json"));
    }

    /** The subjects of the journal's LAUNCH decisions, in order (the journal of one output directory). */
    private static List<String> launches(Path journal, Path key) {
        List<String> out = new ArrayList<>();
        try {
            Journal.read(journal, Optional.of(Journal.readKey(key)), r -> {
                if (r instanceof JournalRecord.Decision && ((JournalRecord.Decision) r).kind()
                        == JournalRecord.Decision.Kind.LAUNCH) {
                    out.add(((JournalRecord.Decision) r).subject());
                }
            });
        } catch (Exception | Error e) {
            out.add("(journal unreadable: " + e + ")");
        }
        return out;
    }

    private static List<String> jobDirs(Path output) throws IOException {
        Path jobs = output.resolve("jobs");
        if (!Files.isDirectory(jobs)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(jobs)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aBurnReplayedAfterAHardRestartNeverRelaunchesAJobOnTheResumedChain() throws Exception {
        long t0 = System.nanoTime();
        rack = RackCommand.create(dir, 3, LocalRack.freePorts(3), sush.projections.fold.Ordering.CAUSAL);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        Path ledger = dir.resolve("ledger.txt");
        String line = "echo \"$SUSH_JOB_ID $(basename $(dirname $(dirname $(dirname $SUSH_JOB_OUTPUT_DIR))))\" >> " + ledger;
        // All three JVMs start together (the machine is small); then each must answer.
        for (int i = 0; i < 3; i++) {
            launch(i);
        }
        for (int i = 0; i < 3; i++) {
            awaitApi(i);
        }
        await("one universe, every sled announced", () -> {
            Set<String> n = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                Optional<JsonNode> v = get(i, "/version");
                Optional<JsonNode> vs = get(i, "/versions");
                if (v.isEmpty() || vs.isEmpty() || vs.get().get("sleds").size() < 3) {
                    return false;
                }
                n.add(v.get().get("network").asString());
            }
            return n.size() == 1;
        });

        // Cut Y off: X and Z keep each other only, Y keeps no one; applied live with SIGHUP.
        writePeers(List.of(Optional.of(List.of(board(Z))), Optional.of(List.of(board(X))), Optional.of(List.of())));
        for (int i = 0; i < 3; i++) {
            long pid = RackAccess.running(rack.sleds().get(i)).orElseThrow().pid();
            new ProcessBuilder("kill", "-HUP", Long.toString(pid)).start().waitFor();
        }
        for (int i = 0; i < 3; i++) {
            Path log = rack.sleds().get(i).output().getParent().resolve("daemon.log");
            await("sled " + i + " reloaded its peers", () -> logContains(log, "peers and revoked certificates reloaded"));
        }

        // A session; J1 for Y only, which Y never hears of; the starter burns J1's position.
        String session = client(X).post("/sessions/start", Map.of()).get("session_id").asString();
        await("session active on X and Z", () -> session.equals(get(X, "/sessions").map(s -> s.path("session_id")
                .asString()).orElse("")) && session.equals(get(Z, "/sessions").map(s -> s.path("session_id")
                        .asString()).orElse("")));
        String j1 = submit(key, line, board(Y));
        assertEquals(Chain.first(SessionId.parse(session)).codephrase(), j1, "J1 is the session's first position");
        client(X).post("/sessions/" + session + "/skip/" + j1, Map.of("by", "e2e"));
        String burnt = Chain.afterBurn(JobId.parse(j1)).codephrase();
        await("X and Z moved past the burn", () -> burnt.equals(nextJob(X)) && burnt.equals(nextJob(Z)));

        // K2 and K3 for X, chained after the burn; both run on X.
        String k2 = submit(key, line, board(X));
        assertEquals(burnt, k2, "K2 sits at afterBurn(J1)");
        await("K2 stopped on X", () -> "stopped".equals(statuses(X, k2).get(board(X))));
        String k3 = submit(key, line, board(X));
        await("K3 stopped on X", () -> "stopped".equals(statuses(X, k3).get(board(X))));
        await("Z holds X's endings of K2 and K3", () -> "stopped".equals(statuses(Z, k2).get(board(X)))
                && "stopped".equals(statuses(Z, k3).get(board(X))));
        JsonNode before = client(X).get("/boundary").path("record").path("committed");
        assertEquals(k3, before.path("job").asString(), "X's record names K3 before the restart: " + before);
        assertEquals(List.of(k2 + " sled00", k3 + " sled00"), Files.readAllLines(ledger), "the ledger before the restart");

        // X loses its output directory (RAM disk) and restarts hard on the same M.2 slots.
        ProcessHandle hx = RackAccess.running(rack.sleds().get(X)).orElseThrow();
        hx.destroyForcibly();
        hx.onExit().get();
        Path output = rack.sleds().get(X).output();
        Path lost = output.resolveSibling("output.lost");
        Files.move(output, lost);
        Files.createDirectory(output);
        launch(X);
        awaitApi(X);
        await("X rejoined Z's universe and replayed the session", () -> {
            Optional<JsonNode> vx = get(X, "/version");
            Optional<JsonNode> vz = get(Z, "/version");
            return vx.isPresent() && vz.isPresent() && vx.get().get("network").equals(vz.get().get("network"))
                    && session.equals(get(X, "/sessions").map(s -> s.path("session_id").asString()).orElse(""))
                    && "stopped".equals(statuses(X, k3).get(board(X)));
        });
        // Anything X relaunches has run by then: X folded a login gossiped at Z after its entry (so
        // it replayed this universe's log and adjudicated), and holds no launch pending or running.
        awaitGossip(Z, X);
        await("X launches nothing more", () -> idle(X));

        List<String> lines = Files.readAllLines(ledger);
        Map<String, Long> runs = new TreeMap<>();
        lines.forEach(l -> runs.merge(l, 1L, Long::sum));
        List<String> newLifeDirs = jobDirs(output);
        // The journal is sealed with the sled's own key (rack init makes it).
        Path journalKey = RackFile.journalKeyOf(rack.sleds().get(X));
        List<String> newLifeLaunches = launches(output.resolve("journal"), journalKey);
        List<String> oldLifeLaunches = launches(lost.resolve("journal"), journalKey);
        JsonNode after = client(X).get("/boundary").path("record").path("committed");
        String evidence = "\n  K2=" + k2 + "\n  K3=" + k3 + "\n  ledger=" + lines + "\n  X's new output jobs/=" + newLifeDirs
                + "\n  X's journal LAUNCH before the restart=" + oldLifeLaunches + ", after=" + newLifeLaunches
                + "\n  X's committed job before=" + before + "\n  after=" + after + "\n  J1 statuses on X="
                + statuses(X, j1) + ", Y's session=" + get(Y, "/sessions").map(JsonNode::toString).orElse("none")
                + "\n  elapsed=" + (System.nanoTime() - t0) / 1_000_000 + " ms";
        System.out.println("RackBurnRestartTest evidence:" + evidence);
        assertAll("nothing launched twice on X after its hard restart" + evidence,
                () -> assertTrue(runs.values().stream().allMatch(c -> c == 1),
                        "a job ran twice on a sled (ledger line -> runs): " + runs),
                () -> assertEquals(java.util.stream.Stream.of(k2 + " sled00", k3 + " sled00").sorted().toList(), lines.stream().sorted().toList(),
                        "the ledger holds exactly one line per (sled, job)"),
                () -> assertEquals(List.of(), newLifeDirs, "X's new life launched jobs (output directories)"),
                () -> assertEquals(List.of(), newLifeLaunches, "X's new life journaled launches"),
                () -> assertEquals(k3, after.path("job").asString(), "X's record still names K3"),
                () -> assertFalse(lines.stream().anyMatch(l -> l.endsWith(" sled02")), "J1 ran on the cut-off Y"));
    }
}
