package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.net.RackCa;
import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;

/** Off loopback the API is HTTPS with the sled's certificate (security.md section 3); clients trust the rack CA. */
class HttpsApiTest {
    @TempDir
    Path dir;

    @Test
    void offLoopbackTheApiIsHttpsAndClientsTrustOnlyTheRackCa() throws Exception {
        RackFile rack = RackCommand.create(dir, 1, RackCommand.freePorts(1), sush.projections.fold.Ordering.CAUSAL);
        RackFile.SledEntry s = rack.sleds().get(0);
        Daemon.Settings on = rack.settings(s, Optional.empty());
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Daemon.Settings wildcard = new Daemon.Settings(on.baseboard(), on.cubby(), on.gossip(), "0.0.0.0:" + port,
                on.m2(), on.output(), on.trust(), on.journalKey(), on.peers(), on.tls(), on.identities(), on.operators(),
                on.ordering());
        try (Daemon d = Daemon.start(wildcard)) {
            assertTrue(d.https());
            Credentials creds = new Credentials(() -> OperatorSigner.fromFile(dir.resolve(RackCommand.OPERATOR_KEY)),
                    Optional.empty());
            Client c = new Client("https://127.0.0.1:" + port, creds, Client.trusting(dir.resolve(RackCa.CA_CERT)));
            assertEquals(s.baseboard(), c.get("/version").get("baseboard").asString());
            // Plain HTTP gets no answer from it.
            HttpClient plain = HttpClient.newHttpClient();
            assertThrows(java.io.IOException.class, () -> plain.send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + port + "/login/challenge")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString()));
            // A client that trusts another CA refuses the sled.
            Path other = Files.createDirectories(dir.resolve("other"));
            RackCa.create(other, "other", new SecureRandom());
            Client stranger = new Client("https://127.0.0.1:" + port, creds, Client.trusting(other.resolve(
                    RackCa.CA_CERT)));
            Client.Failure f = assertThrows(Client.Failure.class, () -> stranger.get("/version"));
            assertEquals("unreachable", f.code(), f.getMessage());
            assertEquals(200, c.raw("GET", "/boundary", new byte[0], Map.of()).statusCode());

            // The CLI trusts the CA its rack file names when no --ca or SUSH_CA is given, and
            // finds the sled's API there as HTTPS.
            String https = "https://127.0.0.1:" + port;
            assertEquals(2, cli("whoami", "--url", https, "--operator-key", dir.resolve(RackCommand.OPERATOR_KEY)
                    .toString()), "no CA anywhere");
            Path rackFile = dir.resolve("wildcard.json");
            rack.withSleds(java.util.List.of(new RackFile.SledEntry(s.baseboard(), s.cubby(), s.gossip(),
                    "0.0.0.0:" + port, s.m2(), s.output(), s.peers()))).write(rackFile);
            RackFile written = RackFile.read(rackFile);
            assertEquals("https://0.0.0.0:" + port, written.apiUrl(written.sleds().get(0)));
            assertEquals("http://" + s.api(), rack.apiUrl(s), "loopback APIs stay HTTP");
            System.setProperty("sush.rack", rackFile.toString());
            try {
                assertEquals(0, cli("whoami", "--url", https, "--operator-key", dir.resolve(RackCommand.OPERATOR_KEY)
                        .toString()));
            } finally {
                System.clearProperty("sush.rack");
            }
        }
    }

    private int cli(String... args) {
        System.setProperty("sush.cache", dir.resolve("cache").toString());
        try {
            return Main.run(args);
        } finally {
            System.clearProperty("sush.cache");
        }
    }
}
