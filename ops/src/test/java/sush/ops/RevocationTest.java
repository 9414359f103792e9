package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fold.Ordering;

/**
 * Issue 36, item 2 (security.md section 5): {@code iam revoke} lasts. On a 3-sled signed rack of
 * daemons in their own processes, a revoked operator never logs in again: not while each sled in
 * turn is killed (-9) and started again (logins tried in a loop through it), not after a
 * whole-rack cold boot, until another operator lifts it with {@code iam unrevoke}. On the code
 * before, revocations lived in memory and in the universe only.
 */
class RevocationTest extends ProcessRack {
    static final int SLEDS = 3;

    /** A login of {@code key} at sled {@code i}: the refusal's code, or "ok". */
    private String login(Path key, int i) {
        try {
            new Client("http://" + rack.sleds().get(i).api(), new Credentials(() -> OperatorSigner.fromFile(key),
                    Optional.empty())).login();
            return "ok";
        } catch (Client.Failure f) {
            return f.code();
        }
    }

    private boolean revokedEverywhere(String keyId, boolean revoked) {
        for (int i = 0; i < SLEDS; i++) {
            try {
                boolean seen = false;
                for (var op : client(i).get("/iam").get("operators")) {
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

    /** {@code sush iam VERB KEY} through sled 0, as the rack's operator. */
    private CliRun iam(String verb, String key) {
        return CliRun.of("iam", verb, key, "--url", "http://" + rack.sleds().get(0).api(), "--operator-key",
                dir.resolve(RackCommand.OPERATOR_KEY).toString());
    }

    private void killHard(int i) throws Exception {
        Process p = processes.get(i);
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.onExit().get();
    }

    private void startAgain(int i) throws Exception {
        processes.set(i, RackAccess.start(dir, rack.sleds().get(i)));
    }

    @Test
    void aRevocationHoldsThroughHardRestartsAndAColdBootUntilUnrevoked() throws Exception {
        rack = RackCommand.create(dir, SLEDS, LocalRack.freePorts(SLEDS), Ordering.SIGNED);
        Path mallory = dir.resolve("mallory.key");
        OperatorSigner m = OperatorSigner.generate(mallory, "mallory", new SecureRandom());
        Files.writeString(rack.operators(), Files.readString(dir.resolve("mallory.key.pub")),
                java.nio.file.StandardOpenOption.APPEND);
        for (int i = 0; i < SLEDS; i++) {
            processes.add(RackAccess.start(dir, rack.sleds().get(i)));
        }
        await("one universe", () -> oneUniverse(SLEDS));
        String id = m.publicKey().id().codephrase();
        assertEquals("ok", login(mallory, 1));
        // As an operator does it: the CLI, through sled 0.
        assertEquals(0, iam("revoke", id).exit());
        await("every sled knows the revocation", () -> revokedEverywhere(id, true));

        // Each sled in turn is killed and started again while the revoked key tries to log in there.
        for (int at = 0; at < SLEDS; at++) {
            int sled = at;
            List<String> during = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean go = new AtomicBoolean(true);
            Thread attacker = new Thread(() -> {
                while (go.get()) {
                    during.add(login(mallory, sled));
                }
            });
            attacker.start();
            await("the attacker tried sled " + sled, () -> !during.isEmpty());
            killHard(sled);
            startAgain(sled);
            assertTrue(RackAccess.awaitApi(rack.sleds().get(sled).api()), "sled " + sled + " serves again");
            // Through the restart until the sled is back in the rack's universe, and refused there.
            await("sled " + sled + " back in one universe", () -> oneUniverse(SLEDS));
            int back = during.size();
            await("a login refused at sled " + sled + " since", () -> during.lastIndexOf("revoked") >= back);
            go.set(false);
            attacker.join();
            assertTrue(during.stream().noneMatch("ok"::equals), "logged in at sled " + sled + " through its hard "
                    + "restart: " + during.stream().distinct().toList());
            assertTrue(during.lastIndexOf("revoked") > during.indexOf("unreachable") && during.contains("unreachable"),
                    "tried on both sides of the restart: " + during.stream().distinct().toList());
        }

        // A whole-rack cold boot: every daemon killed, then started; nothing of the universe is kept.
        for (int i = 0; i < SLEDS; i++) {
            killHard(i);
        }
        for (int i = 0; i < SLEDS; i++) {
            startAgain(i);
        }
        for (int i = 0; i < SLEDS; i++) {
            assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " serves again");
        }
        // Tried at every sled until, in one universe again, every sled refuses it as revoked.
        Set<String> answers = new HashSet<>();
        Awaitility.await("every sled refuses the revoked key in one universe").atMost(Duration.ofSeconds(38))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).until(() -> {
                    boolean one = oneUniverse(SLEDS);
                    Set<String> round = new HashSet<>();
                    for (int i = 0; i < SLEDS; i++) {
                        String r = login(mallory, i);
                        round.add(r);
                        assertTrue(!"ok".equals(r), "sled " + i + " let the revoked key in after the cold boot");
                    }
                    answers.addAll(round);
                    return one && round.equals(Set.of("revoked"));
                });
        assertTrue(answers.contains("revoked"), "answers after the cold boot: " + answers);
        await("one universe after the cold boot", () -> oneUniverse(SLEDS));
        assertTrue(revokedEverywhere(id, true));

        // Lifted by another operator: logs in again everywhere.
        CliRun lifted = iam("unrevoke", id);
        assertEquals(0, lifted.exit(), lifted.out() + lifted.err());
        await("every sled knows the revocation was lifted", () -> revokedEverywhere(id, false));
        for (int i = 0; i < SLEDS; i++) {
            assertEquals("ok", login(mallory, i), "sled " + i + " after the unrevoke");
        }
    }
}
