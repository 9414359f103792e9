package sush.ops;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sush.ops.auth.OperatorSigner;
import sush.ops.cli.Client;
import sush.ops.cli.Invocation;
import sush.ops.cli.RackCommand;
import sush.projections.fold.Ordering;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignerKey;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerTrust;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.fixtures.Jobs;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import tools.jackson.databind.JsonNode;

/**
 * Issue 41's bar for rack-wide signer trust: on a live 3-sled signed rack, with no daemon
 * restarted, an operator adds signer key B, starts a session granted by B, revokes key A, and A's
 * next job is refused on every sled ({@code InvalidJob{RevokedSigner}}) while B's runs; the
 * revocation survives a sled's restart (kept on its disk); a revoked key is never added again; a
 * change no operator signed changes nothing; a job of A admitted before the revocation and not
 * started yet never runs; one gossiped after it is refused by every sled's fold.
 */
class SignerRotationTest {
    @TempDir
    Path dir;

    private record Ran(int exit, String out, String err) {
    }

    private Ran cli(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Main.run(new Invocation(env, dir, InputStream.nullInputStream(), o, e, false), args);
        }
        return new Ran(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static JsonNode trust(LocalRack rack, int sled) throws Client.Failure {
        return rack.client(sled).get("/trust");
    }

    private static boolean lists(JsonNode n, String field, String key) {
        for (JsonNode k : n.path(field)) {
            if ((k.isString() ? k.asString() : k.path("key_id").asString()).equals(key)) {
                return true;
            }
        }
        return false;
    }

    /** Every sled of {@code rack} says job {@code id} is an invalid job: its signer was revoked. */
    private static void refusedEverywhere(LocalRack rack, String id) {
        JsonNode statuses = await("every sled refuses " + id).atMost(Duration.ofSeconds(30))
                .ignoreException(Client.Failure.class).until(() -> rack.client(2).get("/jobs/" + id + "/status")
                        .get("statuses"), st -> st.size() == 3 && st.findValues("status").stream().allMatch(
                                s -> s.asString().equals("error")));
        for (JsonNode st : statuses) {
            assertTrue(st.toString().contains("revoked_signer"), statuses.toString());
        }
    }

    @Test
    void aSignerKeyIsRotatedOnALiveRackWithNoRestart() throws Exception {
        try (LocalRack rack = new LocalRack(dir.resolve("rack"), 3, Ordering.SIGNED)) {
            rack.converge();
            Path rackDir = dir.resolve("rack");
            SignerKey b = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
            Files.writeString(dir.resolve("b.key"), b.privatePem());
            Files.writeString(dir.resolve("b.pub"), b.publicPem());
            String keyA = SignerTrust.keyIdOf(SignerTrust.spkiOfPem(SignerKey.fromPem(Files.readString(rackDir
                    .resolve("signer.key"))).publicPem())).codephrase();
            String keyB = SignerTrust.keyIdOf(SignerTrust.spkiOfPem(b.publicPem())).codephrase();
            Map<String, String> env = new HashMap<>(Map.of("SUSH_OPERATOR_KEY", rackDir.resolve(
                    RackCommand.OPERATOR_KEY).toString(), "SUSH_URL", rack.url(0), "XDG_CACHE_HOME", dir.resolve(
                            "cache").toString(), "XDG_STATE_HOME", dir.resolve("state").toString()));
            Map<String, String> asA = new HashMap<>(env);
            asA.put("SUSH_SIGNER_KEY", rackDir.resolve("signer.key").toString());
            Map<String, String> asB = new HashMap<>(env);
            asB.put("SUSH_SIGNER_KEY", dir.resolve("b.key").toString());

            // Add B: every sled trusts it, none restarted.
            Ran add = cli(env, "trust", "add", dir.resolve("b.pub").toString());
            assertEquals(0, add.exit(), add.out() + add.err());
            for (int i = 0; i < 3; i++) {
                int sled = i;
                await("sled " + i + " trusts B").atMost(Duration.ofSeconds(20)).until(() -> lists(trust(rack, sled),
                        "trusted", keyB));
            }
            // A session granted by B; a job of A in it still runs (A is trusted yet).
            Ran session = cli(asB, "session", "start");
            assertEquals(0, session.exit(), session.out() + session.err());
            Ran before = cli(asA, "job", "start", "--wait", "--", "true");
            assertEquals(0, before.exit(), before.out() + before.err());

            // A job of A admitted while B's job runs, not started when A is revoked: it never runs.
            Ran slow = cli(asB, "job", "start", "--", "sleep 3");
            assertEquals(0, slow.exit(), slow.out() + slow.err());
            Ran queued = cli(asA, "job", "start", "--", "echo queued-a");
            assertEquals(0, queued.exit(), queued.out() + queued.err());
            String queuedId = queued.out().trim();

            // Revoke A: every sled refuses A's jobs from then on, B's run.
            Ran revoke = cli(env, "trust", "revoke", keyA);
            assertEquals(0, revoke.exit(), revoke.out() + revoke.err());
            for (int i = 0; i < 3; i++) {
                int sled = i;
                await("sled " + i + " revoked A").atMost(Duration.ofSeconds(20)).until(() -> lists(trust(rack, sled),
                        "revoked", keyA) && !lists(trust(rack, sled), "trusted", keyA));
            }
            refusedEverywhere(rack, queuedId);
            // A's next job: the sled asked refuses it at once, before gossip.
            Ran refused = cli(asA, "job", "start", "--wait", "--", "echo should-not-run");
            assertEquals(2, refused.exit(), refused.out() + refused.err());
            assertTrue(refused.err().contains("revoked-signer"), refused.err());
            // And one gossiped anyway (a stale sled's copy; at a position off the operator's way, so
            // that the chain goes on): every sled's fold refuses it for its signer.
            JsonNode active = rack.client(0).get("/sessions");
            SignedJob stale = Jobs.at(SignerKey.fromPem(Files.readString(rackDir.resolve("signer.key"))),
                    SessionId.parse(active.get("session_id").asString()), Chain.afterBurn(JobId.parse(active.get(
                            "next_job").asString())), "echo stale", "*", false);
            rack.daemons.get(0).node().send(MessageCodec.encode(new Message.JobStart(stale)));
            refusedEverywhere(rack, stale.request().job().codephrase());
            Ran after = cli(asB, "job", "start", "--wait", "--", "true");
            assertEquals(0, after.exit(), after.out() + after.err());

            // A revoked key is never trusted again; a change is the asking operator's own.
            Ran again = cli(env, "trust", "add", dir.resolve("rack").resolve("signer.pub").toString());
            assertEquals(2, again.exit(), again.out() + again.err());
            assertTrue(again.err().contains("revoked-signer"), again.err());
            Ran list = cli(env, "trust", "list");
            assertEquals(0, list.exit(), list.err());
            assertTrue(list.out().contains(keyB) && list.out().contains(keyA), list.out());

            // A change no operator of the rack signed (a stranger's SSH key) changes nothing: gossiped
            // from sled 0 before a true change, it is folded first everywhere, and B stays trusted.
            OperatorSigner stranger = OperatorSigner.generate(dir.resolve("stranger.key"), "stranger",
                    new SecureRandom());
            byte[] spkiB = SignerTrust.spkiOfPem(b.publicPem());
            byte[] forged = SignerTrust.body(false, SignerTrust.keyIdOf(spkiB), new byte[0], "0badc0de");
            rack.daemons.get(0).node().send(MessageCodec.encode(new Message.TrustChange(new SignerTrust(false,
                    SignerTrust.keyIdOf(spkiB), new byte[0], "0badc0de", stranger.publicKey().blob(),
                    stranger.sign(forged)))));
            SignerKey c = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
            Files.writeString(dir.resolve("c.pub"), c.publicPem());
            String keyC = SignerTrust.keyIdOf(SignerTrust.spkiOfPem(c.publicPem())).codephrase();
            assertEquals(0, cli(env, "trust", "add", dir.resolve("c.pub").toString()).exit());
            for (int i = 0; i < 3; i++) {
                int sled = i;
                await("sled " + i + " trusts C").atMost(Duration.ofSeconds(20)).until(() -> lists(trust(rack, sled),
                        "trusted", keyC));
                assertTrue(lists(trust(rack, sled), "trusted", keyB), trust(rack, sled).toString());
            }

            // Kept on each sled's disk: a restarted sled refuses A from its start, before it folds
            // anything another sled told it; and says so once it serves.
            rack.daemons.get(1).close();
            rack.daemons.set(1, rack.start(rack.rack.sleds().get(1)));
            assertTrue(rack.daemons.get(1).trust().revokedKeyIds().stream().anyMatch(k -> k.codephrase().equals(keyA))
                    && rack.daemons.get(1).trust().keyIds().stream().anyMatch(k -> k.codephrase().equals(keyB)),
                    rack.daemons.get(1).trust().applied().toString());
            JsonNode kept = await("the restarted sled serves").atMost(Duration.ofSeconds(30))
                    .ignoreException(Client.Failure.class).until(() -> trust(rack, 1), n -> n != null);
            assertTrue(lists(kept, "revoked", keyA) && lists(kept, "trusted", keyB), kept.toString());
        }
    }
}
