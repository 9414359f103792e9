package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.cli.Client;
import sush.projections.fold.Ordering;

/**
 * Issue 36, item 2 (security.md section 5): {@code iam revoke} lasts. On a 3-sled signed rack of
 * real daemons, a revoked operator never logs in again, not while one sled restarts (logins tried
 * in a loop through it), not after a whole-rack cold boot, until another operator lifts it with
 * {@code iam unrevoke}. On the code before, the revocation lived in memory and in the universe
 * only: a restarted sled let the key in at once, and after a cold boot every sled did.
 */
class RevocationTest {
    static final int SLEDS = 3;

    @TempDir
    Path dir;
    LocalRack rack;

    @AfterEach
    void down() {
        if (rack != null) {
            rack.close();
        }
    }

    /** A login of {@code key} at sled {@code i}: the refusal's code, or "ok". */
    private String login(Path key, int i) {
        try {
            new Client(rack.url(i), new Credentials(() -> OperatorSigner.fromFile(key), Optional.empty())).login();
            return "ok";
        } catch (Client.Failure f) {
            return f.code();
        }
    }

    private boolean revokedEverywhere(String keyId, boolean revoked) {
        for (int i = 0; i < SLEDS; i++) {
            try {
                boolean seen = false;
                for (var op : rack.client(i).get("/iam").get("operators")) {
                    if (op.get("key_id").asString().equals(keyId)) {
                        seen = op.get("revoked").asBoolean() == revoked;
                    }
                }
                if (!seen) {
                    return false;
                }
            } catch (Client.Failure f) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aRevocationHoldsThroughARestartAndAColdBootUntilUnrevoked() throws Exception {
        rack = new LocalRack(dir.resolve("rack"), SLEDS, Ordering.SIGNED);
        rack.converge();
        Path mallory = dir.resolve("mallory.key");
        OperatorSigner m = OperatorSigner.generate(mallory, "mallory", new SecureRandom());
        Files.writeString(rack.rack.operators(), Files.readString(dir.resolve("mallory.key.pub")),
                java.nio.file.StandardOpenOption.APPEND);
        for (var d : rack.daemons) {
            d.authority().reload();
        }
        String id = m.publicKey().id().codephrase();
        assertEquals("ok", login(mallory, 1));
        rack.client(0).post("/iam/revoke/" + id, java.util.Map.of());
        ProcessRack.await("every sled knows the revocation", () -> revokedEverywhere(id, true));
        assertEquals("revoked", login(mallory, 1));

        // Every sled restarts in turn while the revoked key tries to log in there, again and again.
        for (int restarted = 0; restarted < SLEDS; restarted++) {
            int at = restarted;
            List<String> during = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean go = new AtomicBoolean(true);
            Thread attacker = new Thread(() -> {
                while (go.get()) {
                    during.add(login(mallory, at));
                }
            });
            attacker.start();
            Thread.sleep(100);
            rack.daemons.get(at).close();
            rack.daemons.set(at, rack.start(rack.rack.sleds().get(at)));
            Thread.sleep(1_500);
            go.set(false);
            attacker.join();
            assertTrue(during.stream().noneMatch("ok"::equals), "logged in at sled " + at + " through its restart: "
                    + during);
            assertTrue(during.stream().filter("revoked"::equals).count() > 1, "tried on both sides of the restart: "
                    + during.stream().distinct().toList());
        }

        // A whole-rack cold boot: nothing of the universe is kept; every sled's disk is.
        rack.coldBoot();
        for (int i = 0; i < SLEDS; i++) {
            assertEquals("revoked", login(mallory, i), "sled " + i + " after the cold boot");
        }
        rack.converge();
        assertTrue(revokedEverywhere(id, true));

        // Lifted by another operator: logs in again, everywhere, and a restart keeps that too.
        rack.client(0).post("/iam/unrevoke/" + id, java.util.Map.of());
        ProcessRack.await("every sled knows the revocation was lifted", () -> revokedEverywhere(id, false));
        rack.daemons.get(2).close();
        rack.daemons.set(2, rack.start(rack.rack.sleds().get(2)));
        for (int i = 0; i < SLEDS; i++) {
            String r = "";
            for (int k = 0; k < 100 && !"ok".equals(r); k++) {
                r = login(mallory, i);
                if (!"ok".equals(r)) {
                    Thread.sleep(50);
                }
            }
            assertEquals("ok", r, "sled " + i + " after the unrevoke");
        }
    }
}
