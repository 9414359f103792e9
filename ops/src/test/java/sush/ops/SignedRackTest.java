package sush.ops;

import sush.ops.wire.SignedRequests;
import sush.ops.wire.Json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.Client;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.Ordering;
import sush.projections.job.Grant;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * A 3-sled rack of the signed ordering in this JVM (ordered-sessions.md), driven through the
 * CLI: a session is a grant of the signer, kept by the CLI; after a whole-rack cold boot
 * {@code sush session resume} re-submits it, the session continues, and nothing runs twice.
 */
class SignedRackTest {
    static final int SLEDS = 3;
    static final List<String> TERMINAL = List.of("stopped", "error", "cancelled", "skipped", "interrupted");
    /** Bound on waiting for a job or a session to reach every sled (300 polls of 50 ms). */
    static final Duration PATIENCE = Duration.ofSeconds(15);

    @TempDir
    static Path root;
    static LocalRack signed;
    static LocalRack causal;

    /** The CLI's cache (login identities) and state (kept grants and chains) of one test, fresh for each. */
    @TempDir
    Path cache;
    private String cacheBefore;
    private String stateBefore;

    @BeforeAll
    static void up() throws Exception {
        signed = new LocalRack(root.resolve("signed"), SLEDS, Ordering.SIGNED);
        causal = new LocalRack(root.resolve("causal"), 1, Ordering.CAUSAL);
        signed.converge();
        causal.converge();
    }

    @AfterAll
    static void down() {
        signed.close();
        causal.close();
    }

    @BeforeEach
    void ownCache() {
        cacheBefore = System.getProperty("sush.cache");
        stateBefore = System.getProperty("sush.state");
        System.setProperty("sush.cache", cache.toString());
        System.setProperty("sush.state", cache.resolve("state").toString());
    }

    @AfterEach
    void restoreCache() {
        if (cacheBefore == null) {
            System.clearProperty("sush.cache");
        } else {
            System.setProperty("sush.cache", cacheBefore);
        }
        if (stateBefore == null) {
            System.clearProperty("sush.state");
        } else {
            System.setProperty("sush.state", stateBefore);
        }
    }

    @Test
    void sessionStartSubmitsAKeptGrantAndJobsRunOnEverySled() throws Exception {
        CliRun start = cli(signed, 0, "session", "start", "--wait", "--json");
        assertEquals(0, start.exit(), start.err());
        JsonNode doc = Json.MAPPER.readTree(start.lastLine());
        String session = doc.get("session_id").asString();
        long epoch = doc.get("epoch").asLong();
        assertTrue(epoch > 1_600_000_000_000L, "a fresh epoch is the signer's clock in ms: " + doc);
        assertEquals(signed.key.id().codephrase(), doc.get("signer").asString());
        assertEquals(epoch + "\n", Files.readString(signed.dir.resolve("signer.key.epoch")),
                "the epoch was issued from the signer key's epoch file");
        // The grant is kept as state (not a cache), under the rack's id, owner-only, and names the
        // session printed and this operator.
        String rack = signed.client(0).get("/version").get("rack_id").asString();
        Path kept = cache.resolve("state/sush/racks/" + rack + "/sessions/" + session + "/grant.json");
        assertEquals(kept.toString(), doc.get("grant_file").asString());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(kept)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(kept.getParent())));
        SignedGrant grant = SignedRequests.grantFromJson(Json.MAPPER.readTree(Files.readString(kept)));
        assertEquals(session, grant.grant().session().codephrase());
        assertEquals(epoch, grant.grant().epoch());
        assertEquals(operator(), grant.grant().starter());
        for (int k = 0; k < SLEDS; k++) {
            JsonNode s = awaitSession(signed, k, session);
            assertEquals("signed", s.get("ordering").asString());
            assertEquals(epoch, s.get("epoch").asLong());
        }
        CliRun status = cli(signed, 2, "session", "status");
        assertEquals(0, status.exit(), status.err());
        assertTrue(status.out().contains(session) && status.out().contains("epoch " + epoch)
                && status.out().contains(signed.key.id().codephrase()), status.out());
        Path ledger = root.resolve("start-ledger.txt");
        CliRun job = cli(signed, 0, "job", "start", "--wait", "--json", appendTo(ledger));
        assertEquals(0, job.exit(), job.out() + job.err());
        String id = Json.MAPPER.readTree(job.lastLine()).get("job_id").asString();
        assertAllRan(ended(signed, id));
        assertEquals(SLEDS, Files.readAllLines(ledger).size(), "once on each sled");
    }

    @Test
    void aWholeRackColdBootIsContinuedBySessionResumeAndNothingRunsTwice() throws Exception {
        CliRun start = cli(signed, 1, "session", "start", "--wait");
        assertEquals(0, start.exit(), start.err());
        String session = start.lastLine();
        for (int k = 0; k < SLEDS; k++) {
            awaitSession(signed, k, session);
        }
        Path ledger = root.resolve("cold-boot-ledger.txt");
        String first = submit(signed, next(signed, appendTo(ledger)));
        String firstId = Json.MAPPER.readTree(first).get("job").asString();
        assertAllRan(ended(signed, firstId));
        String second = submit(signed, next(signed, appendTo(ledger)));
        String secondId = Json.MAPPER.readTree(second).get("job").asString();
        assertAllRan(ended(signed, secondId));

        signed.coldBoot();
        signed.converge();
        Client.Failure forgotten = assertThrows(Client.Failure.class, () -> signed.client(0).get("/sessions"));
        assertEquals("no-session", forgotten.code(), "a cold boot keeps no gossip: no sled knows the session");
        CliRun resume = cli(signed, 2, "session", "resume", "--wait");
        assertEquals(0, resume.exit(), resume.err());
        assertEquals(session, resume.lastLine());
        for (int k = 0; k < SLEDS; k++) {
            JsonNode committed = signed.client(k).get("/boundary").get("record").get("committed");
            assertEquals(secondId, committed.get("job").asString(), committed.toString());
            assertEquals(committed.get("successor").asString(), awaitSession(signed, k, session).get("next_job")
                    .asString(), "sled " + k + " resumes the session at its committed job's successor");
        }
        // A client retrying both earlier jobs: the very bytes it sent before.
        assertEquals(200, post(signed, "/jobs/" + firstId + "/start", first).statusCode());
        assertEquals(200, post(signed, "/jobs/" + secondId + "/start", second).statusCode());
        String third = submit(signed, next(signed, appendTo(ledger)));
        String thirdId = Json.MAPPER.readTree(third).get("job").asString();
        assertAllRan(ended(signed, thirdId));
        // The first job is behind the resumed head; the committed one keeps its recorded ending.
        for (JsonNode st : ended(signed, firstId)) {
            assertEquals("skipped", st.get("status").asString(), st.toString());
            assertEquals("already-handled", st.get("reason").asString(), st.toString());
        }
        ended(signed, secondId);
        List<String> lines = Files.readAllLines(ledger);
        for (String jid : List.of(firstId, secondId, thirdId)) {
            assertEquals(SLEDS, lines.stream().filter(l -> l.startsWith(jid + " ")).count(), lines.toString());
        }
        assertEquals(3 * SLEDS, lines.size(), lines.toString());
    }

    @Test
    void eachOrderingRefusesTheOthersSessionsAndAGrantForAnotherOperator() throws Exception {
        HttpResponse<String> causalStart = post(signed, "/sessions/start", "{}");
        assertEquals(409, causalStart.statusCode(), causalStart.body());
        assertTrue(causalStart.body().contains("wrong-ordering"), causalStart.body());
        HttpResponse<String> grantInCausal = post(causal, "/sessions/grant", grantJson(operator()));
        assertEquals(409, grantInCausal.statusCode(), grantInCausal.body());
        assertTrue(grantInCausal.body().contains("wrong-ordering"), grantInCausal.body());
        // Another operator's grant (here: naming the signer key as the starter) is not this operator's to submit.
        SignedGrant foreign = grant(signed.key.id().codephrase());
        HttpResponse<String> notMine = post(signed, "/sessions/grant", Json.MAPPER.writeValueAsString(
                SignedRequests.grantToJson(foreign)));
        assertEquals(403, notMine.statusCode(), notMine.body());
        assertTrue(notMine.body().contains("not-starter"), notMine.body());
        // By the time each sled folded what another gossiped since:
        signed.awaitGossip(0, 1);
        signed.awaitGossip(0, 2);
        signed.awaitGossip(1, 0);
        for (int k = 0; k < SLEDS; k++) {
            assertNotEquals(foreign.grant().session().codephrase(), activeOr(signed, k, ""), "nothing was gossiped");
        }
        // The CLI: resume in a causal rack, and with nothing kept, are typed failures; causal start is unchanged.
        CliRun inCausal = cli(causal, 0, "session", "resume");
        assertEquals(2, inCausal.exit(), inCausal.err());
        assertTrue(inCausal.err().contains("wrong-ordering"), inCausal.err());
        CliRun nothingKept = cli(signed, 0, "session", "resume");
        assertEquals(4, nothingKept.exit(), nothingKept.err());
        assertTrue(nothingKept.err().contains("no-grant"), nothingKept.err());
        CliRun causalStartCli = cli(causal, 0, "session", "start", "--wait");
        assertEquals(0, causalStartCli.exit(), causalStartCli.err());
        assertEquals(causalStartCli.lastLine(), activeOr(causal, 0, ""));
        assertFalse(Files.exists(cache.resolve("state/sush/racks/" + causal.client(0).get("/version").get("rack_id")
                .asString() + "/sessions/" + causalStartCli.lastLine() + "/grant.json")), "a causal session has no grant to keep");
    }

    @Test
    void sessionStartInASignedRackNeedsTheSignerKey() throws Exception {
        CliRun noKey = CliRun.of("session", "start", "--url", signed.url(0), "--operator-key",
                signed.dir.resolve("operator.key").toString(), "--key", root.resolve("no-such.key").toString());
        assertEquals(2, noKey.exit(), noKey.err());
        assertTrue(noKey.err().contains("bad-key") && noKey.err().contains("no-such.key"), noKey.err());
        assertFalse(Files.exists(cache.resolve("state/sush/racks")), "no grant without a signer key");
    }

    @Test
    void boundaryShowsTheOrderingTheFloorAndTheCommittedSessionsEpoch() throws Exception {
        CliRun start = cli(signed, 0, "session", "start", "--wait", "--json");
        assertEquals(0, start.exit(), start.err());
        JsonNode doc = Json.MAPPER.readTree(start.lastLine());
        String session = doc.get("session_id").asString();
        awaitSession(signed, 1, session);
        String job = submit(signed, next(signed, "true"));
        String jobId = Json.MAPPER.readTree(job).get("job").asString();
        assertAllRan(ended(signed, jobId));
        CliRun b = cli(signed, 1, "boundary");
        assertEquals(0, b.exit(), b.err());
        assertTrue(b.out().contains("ordering    signed\n"), b.out());
        assertTrue(b.out().contains("floor       epoch 0 "), "provisioned at floor epoch 0: " + b.out());
        assertTrue(b.out().contains("committed   " + jobId + " ("), b.out());
        assertTrue(b.out().contains("  session   " + session + "\n"), b.out());
        assertTrue(b.out().contains("  epoch     " + doc.get("epoch").asLong() + "\n"), b.out());
        assertTrue(b.out().contains("  signer    " + signed.key.id().codephrase() + "\n"), b.out());
        // A line of its own, not a word: codephrases draw on words like "universe" too.
        assertFalse(b.out().lines().anyMatch(l -> l.strip().startsWith("universe")), "a signed record names no universe: "
                + b.out());
        CliRun c = cli(causal, 0, "boundary");
        assertEquals(0, c.exit(), c.err());
        assertTrue(c.out().contains("ordering    causal\n") && c.out().contains("\nuniverse    "), c.out());
    }

    // ---- Fixtures ---------------------------------------------------------------------------

    /** The CLI against sled {@code i} of {@code rack}, with its operator and signer keys. */
    private static CliRun cli(LocalRack rack, int i, String... args) {
        List<String> line = new java.util.ArrayList<>(List.of(args));
        // After the command's words ("boundary", "session start", "job start"), before any CMD.
        int at = args[0].equals("boundary") ? 1 : 2;
        line.addAll(at, List.of("--url", rack.url(i), "--operator-key", rack.dir.resolve("operator.key").toString(),
                "--key", rack.dir.resolve("signer.key").toString()));
        return CliRun.of(line.toArray(String[]::new));
    }

    /** A command appending its job id and output directory to {@code ledger}: one line per run. */
    private static String appendTo(Path ledger) {
        return "echo \"$SUSH_JOB_ID $SUSH_JOB_OUTPUT_DIR\" >> " + ledger;
    }

    /** This operator's key id, as sleds name the starter. */
    private static String operator() throws Exception {
        return signed.client(0).login().get("key_id").asString();
    }

    private static SignedGrant grant(String starter) {
        byte[] nonce = new byte[Grant.NONCE_BYTES];
        new SecureRandom().nextBytes(nonce);
        return signed.key.sign(new Grant(System.currentTimeMillis(), signed.key.id(), starter, nonce));
    }

    private static String grantJson(String starter) {
        return Json.MAPPER.writeValueAsString(SignedRequests.grantToJson(grant(starter)));
    }

    private static SignedJob next(LocalRack rack, String command) throws Exception {
        JsonNode s = rack.client(0).get("/sessions");
        return Jobs.at(rack.key, s.get("session_id").asString(), s.get("next_job").asString(), command, "*", false);
    }

    /** Submits {@code job}; the exact body sent, so that it can be sent again byte for byte. */
    private static String submit(LocalRack rack, SignedJob job) throws Exception {
        String body = Json.MAPPER.writeValueAsString(SignedRequests.toJson(job));
        HttpResponse<String> r = post(rack, "/jobs/" + job.request().job().codephrase() + "/start", body);
        assertEquals(200, r.statusCode(), r.body());
        return body;
    }

    private static HttpResponse<String> post(LocalRack rack, String path, String body) throws Exception {
        return rack.client(0).raw("POST", path, body.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    /** The job's statuses once every sled reports a terminal one. */
    private static JsonNode ended(LocalRack rack, String job) throws Exception {
        return await("job " + job + " did not end on every sled").atMost(PATIENCE).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).ignoreException(Client.Failure.class) // not known here yet
                .until(() -> rack.client(0).get("/jobs/" + job + "/status").get("statuses"), statuses -> statuses
                        .size() == SLEDS && statuses.findValues("status").stream().allMatch(s -> TERMINAL.contains(
                                s.asString())));
    }

    private static void assertAllRan(JsonNode statuses) {
        for (JsonNode st : statuses) {
            assertEquals("stopped", st.get("status").asString(), statuses.toString());
            assertEquals(0, st.get("exit_code").asInt(), statuses.toString());
        }
    }

    private static JsonNode awaitSession(LocalRack rack, int i, String session) throws Exception {
        return await("session " + session + " never became active on sled " + i).atMost(PATIENCE)
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .ignoreException(Client.Failure.class) // no session yet
                .until(() -> rack.client(i).get("/sessions"), s -> session.equals(s.get("session_id").asString()));
    }

    private static String activeOr(LocalRack rack, int i, String none) throws Exception {
        try {
            return rack.client(i).get("/sessions").get("session_id").asString();
        } catch (Client.Failure f) {
            return none;
        }
    }
}
