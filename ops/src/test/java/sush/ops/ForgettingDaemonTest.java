package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import sush.ops.cli.Client;
import sush.ops.cli.Invocation;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.Ordering;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Issue 39 through the daemon as an operator runs it ({@code sush daemon --rack R --sled S} on
 * every sled: forgetting is a rack's default since D-057; the restarted sled asks for it by name): jobs end, the sleds forget them from their gossip sets (what
 * each holds falls back to a handful of messages), and a sled killed with kill -9 whose resume
 * point the rack forgot meanwhile comes back, jumps over the forgotten positions and runs the
 * next job, which runs once; it answers a forgotten job's status and the job history from its
 * journal as it did from its fold before, and tells a client asking for the chain after a forgotten position where the
 * live chain goes on. The active session's chain forgets the settled positions too (D-058).
 */
class ForgettingDaemonTest extends ClientRack {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int SLEDS = 3;

    private Path ledger;
    private SignerKey key;

    private double metric(int sled, String name) throws Exception {
        String text = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + rack.sleds().get(sled).api()
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " ([0-9.eE+-]+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    private boolean metricAtLeast(int sled, String name, double floor) {
        try {
            return metric(sled, name) >= floor;
        } catch (Exception e) {
            return false;
        }
    }

    private boolean metricAtMost(int sled, String name, double ceiling) {
        try {
            double v = metric(sled, name);
            return v >= 0 && v <= ceiling;
        } catch (Exception e) {
            return false;
        }
    }

    /** Runs one job on {@code target} and waits until every sled it targets stopped it (as sled 0 sees it). */
    private String run(String target, int targeted) throws Exception {
        JsonNode s = client(0).get("/sessions");
        SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(),
                "echo $SUSH_JOB_OUTPUT_DIR >> " + ledger, target, false);
        String id = job.request().job().codephrase();
        client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        await("job " + id + " stopped on its " + targeted + " sleds",
                () -> statuses(0, id).values().stream().filter("stopped"::equals).count() == targeted);
        return id;
    }

    /** The job ids of a {@code /jobs} body, in order. */
    private static List<String> ids(String body) throws Exception {
        List<String> out = new ArrayList<>();
        Json.MAPPER.readTree(body).get("jobs").forEach(j -> out.add(j.get("job_id").asString()));
        return out;
    }

    private List<String> ledgerLines() throws Exception {
        return Files.exists(ledger) ? Files.readAllLines(ledger) : List.of();
    }

    /** One CLI command line in this JVM, in the test's work directory; it must succeed. */
    private String cli(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path work = Files.createDirectories(dir.resolve("work"));
        int got;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            got = Main.run(new Invocation(cliEnvironment(), work, InputStream.nullInputStream(), o, e, false), args);
        }
        String said = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, got, String.join(" ", args) + ": " + said);
        return said;
    }

    /**
     * Sled {@code i}'s settings as a sled config ({@code ops/dist/sled.example.json}'s fields), with
     * {@code "cubbies"} naming every sled of the rack: how a sled in service is started (the
     * systemd unit runs {@code sush daemon --config /etc/sush/sled.json}).
     */
    private Path sledConfig(int i) throws Exception {
        RackFile.SledEntry e = rack.sleds().get(i);
        Daemon.Settings s = rack.settings(e, Optional.empty());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("baseboard", s.baseboard());
        m.put("cubby", s.cubby());
        m.put("gossip", s.gossip());
        m.put("api", s.api());
        m.put("m2", s.m2().stream().map(Path::toString).toList());
        m.put("output", s.output().toString());
        m.put("trust", s.trust().stream().map(Path::toString).toList());
        m.put("operators", s.operators().toString());
        m.put("ordering", s.ordering().wireName());
        s.journalKey().ifPresent(k -> m.put("journal_key", k.toString()));
        Map<String, String> peers = new LinkedHashMap<>();
        s.identities().forEach((addr, board) -> peers.put(board, addr));
        m.put("peers", peers);
        s.tls().ifPresentOrElse(t -> m.put("tls", Map.of("ca", t.ca().toString(), "cert", t.cert().toString(), "key",
                t.key().toString(), "revoked", t.revoked().orElseThrow().toString())),
                () -> m.put("insecure_gossip", true));
        Map<String, Integer> cubbies = new LinkedHashMap<>();
        rack.sleds().forEach(x -> cubbies.put(x.baseboard(), x.cubby()));
        m.put("cubbies", cubbies);
        Path f = dir.resolve("sled" + i + ".json");
        Files.writeString(f, Json.MAPPER.writeValueAsString(m));
        return f;
    }

    /**
     * A causal rack of {@link #SLEDS} daemons with no forgetting flag (a rack's default, D-057),
     * from the rack file or, with {@code fromConfigs}, each from its sled config; once they gossip
     * in one universe.
     */
    private void startRack(boolean fromConfigs) throws Exception {
        rack = RackCommand.create(dir, SLEDS, LocalRack.freePorts(SLEDS), Ordering.CAUSAL);
        ledger = dir.resolve("ran.txt");
        key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        for (int i = 0; i < SLEDS; i++) {
            processes.add(fromConfigs ? RackAccess.startFromConfig(rack.sleds().get(i), sledConfig(i))
                    : RackAccess.start(dir, rack.sleds().get(i), List.of(), List.of()));
        }
        for (int i = 0; i < SLEDS; i++) {
            assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
        }
        await("one universe", () -> oneUniverse(SLEDS));
    }

    @Test
    void sledsStartedFromTheirConfigsForgetWhatTheRackSettled() throws Exception {
        startRack(true);
        client(0).post("/sessions/start", Map.of());
        await("the session everywhere", () -> {
            for (int i = 0; i < SLEDS; i++) {
                try {
                    if (client(i).get("/sessions").path("session_id").asString("").isEmpty()) {
                        return false;
                    }
                } catch (Exception e) {
                    return false;
                }
            }
            return true;
        });
        for (int i = 0; i < 3; i++) {
            run("*", SLEDS);
        }
        for (int i = 0; i < SLEDS; i++) {
            int sled = i;
            await("sled " + i + " forgot the ended jobs", () -> metricAtLeast(sled, "sush_gossip_forgotten", 10));
            // D-058: and its chain forgot their positions (it held the three jobs until then).
            await("sled " + i + "'s chain forgot the settled positions", () -> metricAtMost(sled,
                    "sush_chain_fill_ratio", 0));
        }
        assertEquals(9, ledgerLines().size(), "three jobs on three sleds, each once");
    }

    @Test
    void sledsForgetWhatEndedAndARestartedSledJumpsOverItAndRunsTheNextJobOnce() throws Exception {
        startRack(false);
        String session = client(0).post("/sessions/start", Map.of()).get("session_id").asString();
        await("the session everywhere", () -> {
            for (int i = 0; i < SLEDS; i++) {
                try {
                    if (!session.equals(client(i).get("/sessions").get("session_id").asString())) {
                        return false;
                    }
                } catch (Exception e) {
                    return false;
                }
            }
            return true;
        });
        String first = run("*", SLEDS);
        run("*", SLEDS);
        // Sled 2's boundary record now resumes after the second job; the next ones are not its.
        for (int i = 0; i < 4; i++) {
            run("0", 1);
        }
        for (int i = 0; i < SLEDS; i++) {
            int sled = i;
            await("sled " + i + " forgot the ended jobs", () -> metricAtLeast(sled, "sush_gossip_forgotten", 20));
            // Left: the session's start, and each sled's announcement and newest watermark.
            await("sled " + i + " holds a handful of messages", () -> metricAtMost(sled, "sush_gossip_messages", 12));
        }
        assertEquals(10, ledgerLines().size(), "two jobs on three sleds, four on one");
        String firstBody = client(2).get("/jobs/" + first + "/status").toString();
        assertEquals(3, statuses(2, first).size(), firstBody);
        String historyBody = client(2).get("/jobs?limit=50").toString();

        assertEquals(0, metric(2, "sush_gossip_identity_resumed"), "its first life took a fork or seeded");
        ProcessHandle h = RackAccess.running(rack.sleds().get(2)).orElseThrow();
        h.destroyForcibly();
        h.onExit().get();
        processes.add(RackAccess.start(dir, rack.sleds().get(2), List.of(), List.of("--forgetting")));
        assertTrue(RackAccess.awaitApi(rack.sleds().get(2).api()));
        await("one universe again", () -> oneUniverse(SLEDS));
        // D-053: the kill -9 left its bookmark; the provider had seen its last send, so no fork.
        await("sled 2 took its gossip identity back", () -> metricAtLeast(2, "sush_gossip_identity_resumed", 1));
        // The restarted sled no longer folds the forgotten first job: its journal answers for it,
        // as its fold did before the restart (every sled's status, times and hashes alike).
        assertEquals(firstBody, client(2).get("/jobs/" + first + "/status").toString(),
                "a forgotten job's status from the restarted sled");
        // And its output through the CLI, relayed by sled 0 (which forgot it too), checked
        // against the hash in the status the journals gave.
        String said = cli("--url", url(0), "job", "output", first, "--sled", sled(2), "-o", "first.out");
        assertTrue(said.contains("of stdout from " + sled(2) + " written to first.out (hash verified)"), said);
        // Job history from the restarted sled: every job, as sled 0 (which never restarted) lists
        // it. Sled 2's own ending of its committed job was told again from its boundary record
        // (without times), which the rack now shows for it everywhere.
        JsonNode after = client(2).get("/jobs?limit=50");
        assertEquals(client(0).get("/jobs?limit=50").get("jobs").toString(), after.get("jobs").toString());
        assertEquals(ids(historyBody), ids(after.toString()), "the same jobs, in the same order");
        // A client whose kept tip the rack forgot learns where the live chain goes on.
        String tail = client(0).get("/sessions").get("next_job").asString();
        await("the restarted sled says where the chain goes on after a forgotten position", () -> {
            try {
                return tail.equals(client(2).get("/sessions/" + session + "/chain?after=" + first)
                        .path("continues_at").asString(""));
            } catch (Client.Failure f) {
                return false;
            }
        });
        String next = run("*", SLEDS);
        String log = Files.readString(rack.sleds().get(2).output().getParent().resolve("daemon.log"));
        assertTrue(log.contains("over positions the rack forgot"), "the restarted sled jumped: " + log.lines()
                .filter(l -> l.contains("jumped") || l.contains("WARN")).toList());
        assertEquals("stopped", statuses(2, next).get(rack.sleds().get(2).baseboard()), "the restarted sled ran it");
        List<String> lines = ledgerLines();
        assertEquals(13, lines.size(), "every job ran once where it targets: " + lines);
        String outputs = rack.sleds().get(2).output().toString();
        assertEquals(3, lines.stream().filter(l -> l.startsWith(outputs)).count(),
                "sled 2 ran its three jobs once each: " + lines);
    }
}
