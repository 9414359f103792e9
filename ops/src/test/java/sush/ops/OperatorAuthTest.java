package sush.ops;

import sush.ops.wire.SignedRequests;
import sush.ops.wire.Json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import reactor.core.scheduler.Schedulers;
import sush.gossip.Entropy;
import sush.gossip.net.GossipTls;
import sush.gossip.net.RackCa;
import sush.gossip.net.TcpTransport;
import sush.gossip.node.GossipConfig;
import sush.gossip.node.GossipNode;
import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.cli.Client;
import sush.projections.fixtures.Jobs;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import tools.jackson.databind.JsonNode;

/**
 * Who may ask (security.md section 2, issue 14), on a 2-sled rack of real daemons: every
 * endpoint refuses a request without an identity and changes nothing; a replayed sequence number
 * is refused; only the starter stops and skips; a key outside the operators file cannot log in;
 * a revocation reaches every sled; a peer with a valid certificate cannot stop what it did not
 * start.
 */
class OperatorAuthTest extends TwoSledRack {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    /** A second operator, added to the operators file of every sled (and re-read, as on SIGHUP). */
    static Client secondOperator(String name, int sled) throws Exception {
        Path key = dir.resolve(name + ".key");
        if (!Files.exists(key)) {
            OperatorSigner.generate(key, name, new SecureRandom());
            Files.writeString(rack.rack.operators(), Files.readString(key.resolveSibling(name + ".key.pub")),
                    java.nio.file.StandardOpenOption.APPEND);
            for (var d : rack.daemons) {
                d.authority().reload();
            }
        }
        return new Client(rack.url(sled), new Credentials(() -> OperatorSigner.fromFile(key), Optional.empty()));
    }

    static String session(Client c) throws Exception {
        String id = c.post("/sessions/start", Map.of()).get("session_id").asString();
        await("session " + id + " active on both sleds").atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).ignoreException(Client.Failure.class) // not yet
                .until(() -> id.equals(rack.client(0).get("/sessions").get("session_id").asString())
                        && id.equals(rack.client(1).get("/sessions").get("session_id").asString()));
        return id;
    }

    static HttpResponse<String> bare(String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(0) + path)).header("Content-Type",
                "application/json").method(method, HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyEndpointWithoutAnIdentityIs401AndChangesNothing() throws Exception {
        String before = session(rack.client(0));
        String job = rack.client(0).get("/sessions").get("next_job").asString();
        List<String[]> endpoints = List.of(new String[] {"GET", "/version"}, new String[] {"GET", "/versions"},
                new String[] {"GET", "/sessions"}, new String[] {"POST", "/sessions/start"},
                new String[] {"POST", "/sessions/" + before + "/stop"},
                new String[] {"POST", "/sessions/" + before + "/skip/" + job}, new String[] {"POST", "/jobs/" + job
                    + "/start"}, new String[] {"POST", "/jobs/" + job + "/stop"},
                new String[] {"GET", "/jobs/" + job + "/status"}, new String[] {"GET", "/jobs/" + job + "/output/stdout"},
                new String[] {"GET", "/jobs"}, new String[] {"GET", "/boundary"}, new String[] {"GET", "/iam"},
                new String[] {"POST", "/iam/revoke/" + job}, new String[] {"GET", "/events"});
        for (String[] e : endpoints) {
            HttpResponse<String> r = bare(e[0], e[1], e[0].equals("POST") ? "{}" : "");
            assertEquals(401, r.statusCode(), e[0] + " " + e[1] + ": " + r.body());
            assertTrue(r.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Sush nonce="), e[1]);
            assertEquals("login-required", Json.MAPPER.readTree(r.body()).get("error").asString(), e[1]);
            // A forged header is no better.
            HttpResponse<String> forged = HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(0) + e[1]))
                    .header("Authorization", "Sush key-id=able-acid-aged-also-area-army-away-baby, nonce=AAAA, seq=1, "
                            + "sig=AAAA").method(e[0], HttpRequest.BodyPublishers.ofString("")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, forged.statusCode(), e[1]);
        }
        // By the time each sled folded what the other gossiped since:
        rack.awaitGossip(0, 1);
        rack.awaitGossip(1, 0);
        assertEquals(before, rack.client(1).get("/sessions").get("session_id").asString(), "nothing changed");
        assertEquals(before, rack.client(0).get("/sessions").get("session_id").asString(), "nothing changed");
    }

    @Test
    void theCliLogsInOnDemandAndCachesItsIdentityPrivately() throws Exception {
        Path cache = dir.resolve("cache");
        String key = dir.resolve(sush.ops.cli.RackCommand.OPERATOR_KEY).toString();
        System.setProperty("sush.cache", cache.toString());
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        try {
            System.setOut(new java.io.PrintStream(o, true));
            assertEquals(0, Main.run("iam", "list", "--url", rack.url(1), "--operator-key", key));
            assertEquals(0, Main.run("whoami", "--url", rack.url(1), "--operator-key", key));
        } finally {
            System.setOut(out);
            System.clearProperty("sush.cache");
        }
        assertTrue(o.toString().contains("logged in as "), o.toString());
        try (var files = Files.list(cache.resolve("sush"))) {
            Path id = files.filter(p -> p.getFileName().toString().startsWith("identity-")).findFirst().orElseThrow();
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(id)));
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(id.getParent())));
        }
    }

    @Test
    void aLoginThroughTheSshAgent() throws Exception {
        boolean tools = Files.isExecutable(Path.of("/usr/bin/ssh-agent")) && Files.isExecutable(Path.of("/usr/bin/ssh-add"));
        if (!tools) {
            System.out.println("skipped: no ssh-agent/ssh-add on this machine (Debian package openssh-client)");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(tools, "ssh-agent and ssh-add (openssh-client)");
        Path sock = dir.resolve("agent.sock");
        Process agent = new ProcessBuilder("ssh-agent", "-D", "-a", sock.toString()).redirectErrorStream(true).start();
        try {
            await("the agent's socket").atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20)).until(() -> Files.exists(sock));
            // The key file sush writes is one OpenSSH itself reads.
            Path key = dir.resolve(sush.ops.cli.RackCommand.OPERATOR_KEY);
            ProcessBuilder add = new ProcessBuilder("ssh-add", key.toString()).redirectErrorStream(true);
            add.environment().put("SSH_AUTH_SOCK", sock.toString());
            Process p = add.start();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), said);
            Client c = new Client(rack.url(0), new Credentials(() -> OperatorSigner.agent(sock, k -> true),
                    Optional.empty()));
            JsonNode who = c.login();
            assertEquals(OperatorSigner.fromFile(key).publicKey().id().codephrase(), who.get("key_id").asString());
            assertEquals(200, c.raw("GET", "/version", new byte[0], Map.of()).statusCode());
        } finally {
            agent.destroy();
        }
    }

    /**
     * Issue 41: {@code sush iam available} through the CLI with a real SSH agent holding a key the
     * operators file does not list (first, so the command must go past it), the operator's key,
     * and an RSA key (a type sush does not take): each marked, and the one that logs in named.
     */
    @Test
    void iamAvailableMarksTheAgentsKeys() throws Exception {
        boolean tools = Files.isExecutable(Path.of("/usr/bin/ssh-agent")) && Files.isExecutable(Path.of("/usr/bin/ssh-add"))
                && Files.isExecutable(Path.of("/usr/bin/ssh-keygen"));
        org.junit.jupiter.api.Assumptions.assumeTrue(tools, "ssh-agent, ssh-add and ssh-keygen (openssh-client)");
        Path sock = dir.resolve("agent2.sock");
        Process agent = new ProcessBuilder("ssh-agent", "-D", "-a", sock.toString()).redirectErrorStream(true).start();
        try {
            await("the agent's socket").atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20)).until(() -> Files.exists(sock));
            Path stranger = dir.resolve("agent-stranger.key");
            Path rsa = dir.resolve("agent-rsa.key");
            for (String[] k : List.of(new String[] {"ed25519", stranger.toString(), "stranger"},
                    new String[] {"rsa", rsa.toString(), "old-rsa"})) {
                Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", k[0], "-N", "", "-C", k[2], "-f", k[1])
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .redirectErrorStream(true).start();
                assertEquals(0, p.waitFor(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
            Path operator = dir.resolve(sush.ops.cli.RackCommand.OPERATOR_KEY);
            for (Path key : List.of(stranger, operator, rsa)) {
                ProcessBuilder add = new ProcessBuilder("ssh-add", key.toString()).redirectErrorStream(true);
                add.environment().put("SSH_AUTH_SOCK", sock.toString());
                Process p = add.start();
                String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, p.waitFor(), said);
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int exit;
            try (java.io.PrintStream o = new java.io.PrintStream(out, true, StandardCharsets.UTF_8);
                    java.io.PrintStream e = new java.io.PrintStream(err, true, StandardCharsets.UTF_8)) {
                exit = sush.ops.Main.run(new sush.ops.cli.Invocation(Map.of("SSH_AUTH_SOCK", sock.toString(),
                        "XDG_CACHE_HOME", dir.resolve("cache").toString()), dir, java.io.InputStream.nullInputStream(),
                        o, e, false), "iam", "available", "--url", rack.url(0));
            }
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, exit, text + err.toString(StandardCharsets.UTF_8));
            String op = OperatorSigner.fromFile(operator).publicKey().id().codephrase();
            String other = OperatorSigner.fromFile(stranger).publicKey().id().codephrase();
            assertTrue(text.lines().anyMatch(l -> l.contains(other) && l.contains("stranger")
                    && l.endsWith("not listed")), text);
            assertTrue(text.lines().anyMatch(l -> l.contains(op) && l.endsWith("listed (logged in)")), text);
            assertTrue(text.lines().anyMatch(l -> l.contains("ssh-rsa") && l.contains("old-rsa")
                    && l.endsWith("a type sush does not take")), text);
            assertTrue(text.contains("a command logs in with " + op), text);
            // And one does: the login passes the agent's first key, which the sled does not list.
            java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
            try (java.io.PrintStream o = new java.io.PrintStream(said, true, StandardCharsets.UTF_8)) {
                exit = sush.ops.Main.run(new sush.ops.cli.Invocation(Map.of("SSH_AUTH_SOCK", sock.toString(),
                        "XDG_CACHE_HOME", dir.resolve("cache2").toString()), dir, java.io.InputStream.nullInputStream(),
                        o, o, false), "login", "--url", rack.url(1));
            }
            assertEquals(0, exit, said.toString(StandardCharsets.UTF_8));
            assertTrue(said.toString(StandardCharsets.UTF_8).contains(op), said.toString(StandardCharsets.UTF_8));
        } finally {
            agent.destroy();
        }
    }

    @Test
    void anEcdsaKeyMadeByOpenSshLogsIn() throws Exception {
        boolean tool = Files.isExecutable(Path.of("/usr/bin/ssh-keygen"));
        if (!tool) {
            System.out.println("skipped: no ssh-keygen on this machine (Debian package openssh-client)");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(tool, "ssh-keygen (openssh-client)");
        Path key = dir.resolve("ecdsa.key");
        Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ecdsa", "-b", "256", "-N", "", "-C", "ecdsa-op", "-f",
                key.toString()).redirectErrorStream(true).start();
        assertEquals(0, p.waitFor(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        Files.writeString(rack.rack.operators(), Files.readString(key.resolveSibling("ecdsa.key.pub")),
                java.nio.file.StandardOpenOption.APPEND);
        for (var d : rack.daemons) {
            d.authority().reload();
        }
        Client c = new Client(rack.url(1), new Credentials(() -> OperatorSigner.fromFile(key), Optional.empty()));
        assertEquals(sush.ops.auth.SshKey.ECDSA_P256, OperatorSigner.fromFile(key).publicKey().type());
        c.login();
        assertEquals(200, c.raw("GET", "/boundary", new byte[0], Map.of()).statusCode());
    }

    @Test
    void aReplayedSequenceNumberIs401() throws Exception {
        Client c = rack.client(0);
        c.get("/version");
        Credentials.Identity id = c.credentials().identity().orElseThrow();
        String[] to = c.audience();
        String header = c.credentials().authorize(to[0], to[1], "GET", "/version", new byte[0]).orElseThrow();
        HttpResponse<String> first = HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(0) + "/version"))
                .header("Authorization", header).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, first.statusCode(), first.body());
        HttpResponse<String> again = HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(0) + "/version"))
                .header("Authorization", header).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, again.statusCode(), again.body());
        assertEquals("replayed", Json.MAPPER.readTree(again.body()).get("error").asString());
        // A signature over another path does not carry over.
        String other = c.credentials().authorize(to[0], to[1], "GET", "/boundary", new byte[0]).orElseThrow();
        HttpResponse<String> moved = HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(0) + "/version"))
                .header("Authorization", other).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, moved.statusCode(), moved.body());
        assertEquals(id.key(), c.credentials().identity().orElseThrow().key());
    }

    /**
     * Issue 36, item 1: a request signed for one sled is refused {@code wrong-audience} at every
     * other, and never counts there; a request signed for sled B and sent to sled A with
     * {@code ?sled=B} is relayed to B, which takes it once.
     */
    @Test
    void aRequestSignedForOneSledIsRefusedAtTheOthersAndARelayedOneCountsOnceAtItsSled() throws Exception {
        Client c = rack.client(0);
        c.get("/version");
        String[] at0 = c.audience();
        String[] at1 = rack.client(1).audience();
        assertEquals(at0[0], at1[0], "one rack");
        String header = c.credentials().authorize(at0[0], at0[1], "POST", "/iam/revoke/x", new byte[0]).orElseThrow();
        HttpResponse<String> elsewhere = HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(1) + "/iam/revoke/x"))
                .header("Authorization", header).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, elsewhere.statusCode(), elsewhere.body());
        assertEquals("wrong-audience", Json.MAPPER.readTree(elsewhere.body()).get("error").asString());

        // Sled 1 honours the identity once the login's gossip reached it.
        HttpResponse<String> known = await("sled 1 learnt the identity").atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25)).until(() -> {
                    String probe = c.credentials().authorize(at0[0], at1[1], "GET", "/version", new byte[0])
                            .orElseThrow();
                    return HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(1) + "/version"))
                            .header("Authorization", probe).GET().build(), HttpResponse.BodyHandlers.ofString());
                }, r -> r.statusCode() == 200);
        assertEquals(200, known.statusCode(), "sled 1 learnt the identity: " + known.body());
        String path = "/version?sled=" + java.net.URLEncoder.encode(at1[1], java.nio.charset.StandardCharsets.UTF_8);
        String relayed = c.credentials().authorize(at0[0], at1[1], "GET", path, new byte[0]).orElseThrow();
        for (int via : new int[] {0, 1}) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(via) + path))
                    .header("Authorization", relayed).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (via == 0) {
                assertEquals(200, r.statusCode(), r.body());
                assertEquals(at1[1], Json.MAPPER.readTree(r.body()).get("baseboard").asString(), r.body());
            } else {
                assertEquals(401, r.statusCode(), "the relayed request, replayed at its sled: " + r.body());
                assertEquals("replayed", Json.MAPPER.readTree(r.body()).get("error").asString());
            }
        }
        // Signed for sled 1 with no ?sled=: sled 0 does not take it.
        String direct = c.credentials().authorize(at0[0], at1[1], "GET", "/version", new byte[0]).orElseThrow();
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(rack.url(0) + "/version"))
                .header("Authorization", direct).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("wrong-audience", Json.MAPPER.readTree(r.body()).get("error").asString(), r.body());
    }

    /**
     * Issue 36, item 6: 10,000 unauthenticated challenges asked after a client's never push it
     * out (they were kept in a bounded table, and the client's login then failed 401 expired).
     */
    @Test
    void tenThousandStrangersChallengesEvictNoClientsChallenge() throws Exception {
        HttpRequest ask = HttpRequest.newBuilder(URI.create(rack.url(0) + "/login/challenge"))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        byte[] nonce = java.util.Base64.getDecoder().decode(Json.MAPPER.readTree(HTTP.send(ask,
                HttpResponse.BodyHandlers.ofString()).body()).get("nonce").asString());
        List<java.util.concurrent.CompletableFuture<HttpResponse<Void>>> strangers = new java.util.ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            strangers.add(HTTP.sendAsync(ask, HttpResponse.BodyHandlers.discarding()));
            if (strangers.size() >= 64) {
                strangers.forEach(java.util.concurrent.CompletableFuture::join);
                strangers.clear();
            }
        }
        strangers.forEach(java.util.concurrent.CompletableFuture::join);
        OperatorSigner op = OperatorSigner.fromFile(rack.dir.resolve("operator.key"));
        byte[][] eph = Credentials.ephemeral(new SecureRandom());
        byte[] clientNonce = new byte[16];
        java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
        String body = Json.MAPPER.writeValueAsString(Map.of("key", b64.encodeToString(op.publicKey().blob()), "nonce",
                b64.encodeToString(nonce), "client_nonce", b64.encodeToString(clientNonce), "ephemeral",
                b64.encodeToString(eph[1]), "signature", b64.encodeToString(op.sign(sush.ops.auth.Authority.loginBytes(
                        nonce, clientNonce, eph[1])))));
        HttpRequest login = HttpRequest.newBuilder(URI.create(rack.url(0) + "/login")).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> r = HTTP.send(login, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        HttpResponse<String> again = HTTP.send(login, HttpResponse.BodyHandlers.ofString());
        assertEquals(401, again.statusCode(), "a challenge logs in once: " + again.body());
    }

    /**
     * Issue 36, item 4: a request-target that is not a path is 400 before any routing; the relay
     * never connects where such a target points (it used to paste it onto the announced address).
     */
    @Test
    void aRequestTargetThatIsNotAPathIs400BeforeRouting() throws Exception {
        String token = rack.client(0).credentials().readToken(System.currentTimeMillis() + 60_000).orElseGet(() -> {
            try {
                rack.client(0).get("/version");
            } catch (Client.Failure f) {
                throw new AssertionError(f);
            }
            return rack.client(0).credentials().readToken(System.currentTimeMillis() + 60_000).orElseThrow();
        });
        String board1 = rack.rack.sleds().get(1).baseboard();
        try (java.net.ServerSocket trap = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            trap.setSoTimeout(1);
            for (String target : new String[] {"@127.0.0.1:" + trap.getLocalPort() + "/version?sled=" + board1,
                    ":" + trap.getLocalPort() + "/version?sled=" + board1, "/version/../boundary"}) {
                java.net.URI api = URI.create(rack.url(0));
                try (java.net.Socket c = new java.net.Socket(api.getHost(), api.getPort())) {
                    c.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nAuthorization: "
                            + sush.ops.auth.Authority.READ_SCHEME + token + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    String answer = new String(c.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    assertTrue(answer.startsWith("HTTP/1.1 400") && answer.contains("bad-request-target"), target
                            + ": " + answer);
                }
                assertThrows(java.net.SocketTimeoutException.class, trap::accept, "the sled connected to the trap");
            }
        }
    }

    @Test
    void onlyTheStarterStopsAndSkips() throws Exception {
        String s = session(rack.client(0));
        String next = rack.client(0).get("/sessions").get("next_job").asString();
        Client other = secondOperator("op2", 0);
        Client.Failure stop = assertThrows(Client.Failure.class, () -> other.post("/sessions/" + s + "/stop", Map.of()));
        assertEquals("not-starter", stop.code(), stop.getMessage());
        Client.Failure skip = assertThrows(Client.Failure.class, () -> other.post("/sessions/" + s + "/skip/" + next,
                Map.of()));
        assertEquals("not-starter", skip.code());
        HttpResponse<String> r = other.raw("POST", "/sessions/" + s + "/stop", "{}".getBytes(StandardCharsets.UTF_8),
                Map.of());
        assertEquals(403, r.statusCode());
        // Reading needs any identity.
        assertEquals(s, other.get("/sessions").get("session_id").asString());
        assertEquals(next, rack.client(1).get("/sessions").get("next_job").asString(), "no burn happened");
        // The starter may.
        rack.client(0).post("/sessions/" + s + "/skip/" + next, Map.of());
    }

    @Test
    void aKeyOutsideTheOperatorsFileCannotLogIn() throws Exception {
        Path stranger = dir.resolve("stranger.key");
        OperatorSigner.generate(stranger, "stranger", new SecureRandom());
        Client c = new Client(rack.url(0), new Credentials(() -> OperatorSigner.fromFile(stranger), Optional.empty()));
        Client.Failure f = assertThrows(Client.Failure.class, c::login);
        assertEquals("unknown-key", f.code(), f.getMessage());
        assertTrue(c.credentials().identity().isEmpty());
    }

    @Test
    void aRevokedKeyIsRefusedOnEverySledWithinAGossipRound() throws Exception {
        Client victim0 = secondOperator("op3", 0);
        Client victim1 = secondOperator("op3", 1);
        victim0.get("/version");
        victim1.get("/version");
        String key = victim0.credentials().identity().orElseThrow().key().codephrase();
        rack.client(0).post("/iam/revoke/" + key, Map.of());
        long t0 = System.nanoTime();
        boolean refused = await("sled 1 refuses the revoked key").atMost(Duration.ofSeconds(5))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(() -> refuses(victim1), r -> r);
        assertTrue(refused, "sled 1 refuses the revoked key");
        System.out.printf("revocation refused at sled 1 after %.0f ms%n", (System.nanoTime() - t0) / 1e6);
        Client.Failure again = assertThrows(Client.Failure.class, victim1::login);
        assertEquals("revoked", again.code());
        Client.Failure here = assertThrows(Client.Failure.class, victim0::login);
        assertEquals("revoked", here.code());
        JsonNode iam = rack.client(1).get("/iam");
        boolean listed = false;
        for (JsonNode op : iam.get("operators")) {
            listed |= op.get("key_id").asString().equals(key) && op.get("revoked").asBoolean();
        }
        assertTrue(listed, iam.toString());
    }

    @Test
    void aPeerWithAValidCertificateCannotStopWhatItDidNotStart() throws Exception {
        String s = session(rack.client(0));
        // A long job on both sleds.
        JsonNode at = rack.client(0).get("/sessions");
        SignedJob job = Jobs.at(rack.key, s, at.get("next_job").asString(), "sleep 20", "*", false);
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertTrue(started(id), "the job runs on both sleds"));
        // A machine the rack CA certified as a sled, admitted as a peer of both sleds.
        String board = "913-0000019:PEER";
        RackCa ca = RackCa.load(dir, new SecureRandom());
        ca.issue(board, dir.resolve("peer"));
        GossipTls tls = GossipTls.load(dir.resolve(RackCa.CA_CERT), dir.resolve("peer").resolve(RackCa.SLED_CERT),
                dir.resolve("peer").resolve(RackCa.SLED_KEY), Optional.empty());
        TcpTransport t = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(tls));
        GossipNode peer = new GossipNode(GossipConfig.defaults("127.0.0.1:1"), t, Schedulers.parallel(), Entropy.secure());
        peer.start().block(Duration.ofSeconds(10));
        try {
            Map<String, String> peers = new java.util.HashMap<>();
            Map<String, String> ids = new java.util.HashMap<>();
            for (int i = 0; i < 2; i++) {
                var sled = rack.rack.sleds().get(i);
                Map<String, String> p = new java.util.HashMap<>(rack.rack.peersOf(sled.baseboard()));
                Map<String, String> d = new java.util.HashMap<>(rack.rack.identitiesOf(sled.baseboard()));
                p.put("127.0.0.1:1", t.localAddress());
                d.put("127.0.0.1:1", board);
                rack.daemons.get(i).setPeers(p, d);
                peers.put(sled.gossip(), sled.gossip());
                ids.put(sled.gossip(), sled.baseboard());
            }
            peer.setPeers(peers, ids);
            await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertTrue(!peer.replica().network().isBootstrapping(),
                            "the peer joined the rack's universe"));
            await("the peer holds what the rack gossiped").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20)).until(() -> peer.replica().size() >= gossipSet(0));
            int[] held = {gossipSet(0), gossipSet(1)};
            // It gossips a stop of the job, a skip and a session stop, each "by" another operator.
            peer.send(MessageCodec.encode(new Message.JobStop(job.request().job(), "intruder")));
            peer.send(MessageCodec.encode(new Message.JobSkip(SessionId.parse(s), job.request().successor(),
                    "intruder")));
            peer.send(MessageCodec.encode(new Message.SessionStop(SessionId.parse(s), "intruder")));
            // Both sleds hold the three, and each folded them by the time it folded what the other
            // gossiped next.
            for (int i = 0; i < 2; i++) {
                int k = i;
                await("sled " + k + " holds the peer's messages").atMost(Duration.ofSeconds(10))
                        .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                        .until(() -> gossipSet(k) >= held[k] + 3);
            }
            rack.awaitGossip(0, 1);
            rack.awaitGossip(1, 0);
            for (int i = 0; i < 2; i++) {
                assertEquals(s, rack.client(i).get("/sessions").get("session_id").asString(), "sled " + i);
                assertEquals(job.request().successor().codephrase(), rack.client(i).get("/sessions").get("next_job")
                        .asString(), "no burn on sled " + i);
                JsonNode st = rack.client(i).get("/jobs/" + id + "/status").get("statuses");
                assertEquals("started", st.get(rack.rack.sleds().get(i).baseboard()).get("status").asString(),
                        "still running on sled " + i + ": " + st);
            }
            // The starter's stop is honoured.
            rack.client(0).post("/jobs/" + id + "/stop", Map.of());
        } finally {
            peer.stop();
        }
    }

    /** Messages in sled {@code i}'s gossip set, as its {@code /ready} says. */
    private static int gossipSet(int i) throws Client.Failure {
        return rack.client(i).probe("/ready").body().get("set_messages").asInt();
    }

    /** Whether {@code c}'s sled refuses its key: a 401, or a refusal of its login again, which must say revoked. */
    private static boolean refuses(Client c) throws Exception {
        try {
            return c.raw("GET", "/version", new byte[0], Map.of()).statusCode() == 401;
        } catch (Client.Failure f) {
            // Refused, and its login again too.
            assertEquals("revoked", f.code(), f.getMessage());
            return true;
        }
    }

    private static boolean started(String id) {
        try {
            int n = 0;
            for (int i = 0; i < 2; i++) {
                JsonNode st = rack.client(i).get("/jobs/" + id + "/status").get("statuses");
                n += st.has(rack.rack.sleds().get(i).baseboard()) && "started".equals(st.get(rack.rack.sleds().get(i)
                        .baseboard()).get("status").asString()) ? 1 : 0;
            }
            return n == 2;
        } catch (Client.Failure f) {
            return false;
        }
    }
}
