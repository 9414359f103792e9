package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.net.RackCa;
import sush.ops.cli.Client;
import sush.ops.cli.JobCommandAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.projections.fixtures.Jobs;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Any sled answers for any sled (issue 18, D-032): sled A relays an output request for sled B
 * to the API B announced, over HTTPS whose certificate must name B, with the operator's own
 * signature checked by B. Ranges pass through; a sled that announced nothing is a 404.
 */
class RelayTest {
    @TempDir
    Path dir;

    @Test
    void aSledRelaysAnotherSledsOutputOverHttpsCheckedToBeThatSled() throws Exception {
        RackFile made = RackCommand.create(dir, 2, RackCommand.freePorts(2), sush.projections.fold.Ordering.CAUSAL);
        // Off loopback (the wildcard address) the APIs are HTTPS with each sled's certificate.
        List<RackFile.SledEntry> wild = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (RackFile.SledEntry s : made.sleds()) {
            int port;
            try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
                port = free.getLocalPort();
            }
            ports.add(port);
            wild.add(new RackFile.SledEntry(s.baseboard(), s.cubby(), s.gossip(), "0.0.0.0:" + port, s.m2(), s.output(),
                    s.peers()));
        }
        RackFile rack = made.withSleds(wild);
        List<Daemon> daemons = new ArrayList<>();
        try {
            for (RackFile.SledEntry s : rack.sleds()) {
                daemons.add(Daemon.start(rack.settings(s, Optional.empty())));
            }
            java.net.http.HttpClient trusting = Client.trusting(dir.resolve(RackCa.CA_CERT));
            Client a = new Client("https://127.0.0.1:" + ports.get(0), new sush.ops.auth.Credentials(
                    () -> sush.ops.auth.OperatorSigner.fromFile(dir.resolve(RackCommand.OPERATOR_KEY)), Optional.empty()),
                    trusting);
            String boardA = rack.sleds().get(0).baseboard();
            String boardB = rack.sleds().get(1).baseboard();
            Client b = new Client("https://127.0.0.1:" + ports.get(1), new sush.ops.auth.Credentials(
                    () -> sush.ops.auth.OperatorSigner.fromFile(dir.resolve(RackCommand.OPERATOR_KEY)), Optional.empty()),
                    trusting);
            // A login gossips: A must be in a universe first (right after the start it answers
            // 503 not-ready; a full run once got there first). Both sleds ready is not enough: at
            // a cold boot each may form a universe of its own, and the one that loses the contest
            // bootstraps again (a CI run's login met A so, "NO_IDENTITY: bootstrapping"); so both
            // ready in one universe.
            await("both ready in one universe").atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).until(() -> oneUniverse(a.probe("/ready"), b.probe("/ready")));
            // A knows B's API once B's announcement reached it.
            await("B's announcement at A").atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).until(() -> a.get("/versions").get("sleds").size() >= 2);
            String sid = sush.ops.bench.ActiveSession.start(a);
            SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
            JsonNode s = a.get("/sessions");
            SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(), "seq 1 20000",
                    boardB, false);
            String id = job.request().job().codephrase();
            a.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
            await("B's output known at A").atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).until(() -> hasOutput(a, id, boardB));
            byte[] want = seq(20000);
            // Whole, through A (verified against B's status by the CLI's own check).
            assertArrayEquals(want, JobCommandAccess.verifiedOutput(a, id, boardB, false));
            // A suffix range, through A.
            HttpResponse<byte[]> tail = a.raw("GET", "/jobs/" + id + "/output/stdout?sled=" + boardB, new byte[0],
                    Map.of("Range", "bytes=-6"), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(206, tail.statusCode());
            assertEquals("bytes " + (want.length - 6) + "-" + (want.length - 1) + "/" + want.length,
                    tail.headers().firstValue("Content-Range").orElseThrow());
            assertEquals("20000\n", new String(tail.body(), StandardCharsets.UTF_8));
            // B's statuses alone, from A.
            assertEquals(List.of(boardB), iterate(a.get("/jobs/" + id + "/status?sled=" + boardB).get("statuses")));
            // A sled nobody announced: a typed 404, nothing relayed.
            HttpResponse<String> nobody = a.raw("GET", "/jobs/" + id + "/output/stdout?sled=913-0000019:NOSUCH",
                    new byte[0], Map.of());
            assertEquals(404, nobody.statusCode());
            assertTrue(nobody.body().contains("unknown-sled"), nobody.body());
            // A relayed request is never relayed again (a wrong announcement cannot make a loop).
            HttpResponse<String> loop = a.raw("GET", "/jobs/" + id + "/output/stdout?sled=" + boardB, new byte[0],
                    Map.of("X-Sush-Relayed-By", boardA));
            assertEquals(508, loop.statusCode());
            assertTrue(loop.body().contains("relay-loop"), loop.body());
        } finally {
            daemons.forEach(Daemon::close);
        }
    }

    /** The trust a relay uses refuses a certificate of the rack that names another sled. */
    @Test
    void theRelaysTrustWantsThatVerySled() throws Exception {
        RackCommand.create(dir, 2, RackCommand.freePorts(2), sush.projections.fold.Ordering.CAUSAL);
        RackFile rack = RackFile.read(dir.resolve("rack.json"));
        java.security.cert.X509Certificate ca = sush.gossip.net.GossipTls.readCertificate(dir.resolve(RackCa.CA_CERT));
        RackFile.SledEntry b = rack.sleds().get(1);
        java.security.cert.X509Certificate certB = sush.gossip.net.GossipTls.readCertificate(rack.tlsOf(b.baseboard())
                .orElseThrow().cert());
        javax.net.ssl.X509TrustManager wantB = sush.gossip.net.GossipTls.apiTrust(ca, Optional.of(b.baseboard()));
        wantB.checkServerTrusted(new java.security.cert.X509Certificate[] {certB}, "ECDHE_ECDSA");
        javax.net.ssl.X509TrustManager wantA = sush.gossip.net.GossipTls.apiTrust(ca, Optional.of(rack.sleds().get(0)
                .baseboard()));
        java.security.cert.CertificateException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.security.cert.CertificateException.class, () -> wantA.checkServerTrusted(
                        new java.security.cert.X509Certificate[] {certB}, "ECDHE_ECDSA"));
        assertTrue(e.getMessage().contains("names sled " + b.baseboard()), e.getMessage());
    }

    private static boolean hasOutput(Client c, String job, String sled) {
        try {
            return c.get("/jobs/" + job + "/status").path("statuses").path(sled).has("stdout_sha3");
        } catch (Client.Failure f) {
            return false; // no status yet
        }
    }

    private static List<String> iterate(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.propertyNames().forEach(out::add);
        return out;
    }

    private static byte[] seq(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            b.append(i).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Both sleds ready, in the same universe: no universe contest is left to lose. */
    private static boolean oneUniverse(Client.Probe a, Client.Probe b) {
        return a.status() == 200 && b.status() == 200 && a.body().path("universe").isString()
                && a.body().path("universe").asString().equals(b.body().path("universe").asString());
    }
}
