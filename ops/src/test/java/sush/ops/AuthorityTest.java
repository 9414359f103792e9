package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.ops.auth.Authority;
import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.auth.SshKey;
import sush.projections.id.KeyId;
import sush.projections.message.Message;

/** The authority's rules with an injected clock: challenges, the sequence window, expiry, bounds, bad input. */
class AuthorityTest {
    @TempDir
    Path dir;
    final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    static final String CLIENT = "192.0.2.1";
    static final Authority.Audience HERE = new Authority.Audience("rack", "sled-a", java.util.Optional.empty());

    Authority authority(OperatorSigner... ops) throws Exception {
        StringBuilder b = new StringBuilder("# operators\n");
        for (OperatorSigner o : ops) {
            b.append("no-pty ").append(o.publicKey().openSsh()).append(" someone\n");
        }
        Files.writeString(dir.resolve("operators"), b);
        return new Authority(dir.resolve("operators"), now::get, Entropy.seeded(7));
    }

    OperatorSigner key(String name) throws Exception {
        return OperatorSigner.generate(dir.resolve(name), name, new SecureRandom());
    }

    /** Logs in; returns the credentials that sign for it. */
    Credentials login(Authority a, OperatorSigner op) throws Exception {
        byte[] nonce = a.challenge(CLIENT);
        byte[][] eph = Credentials.ephemeral(new SecureRandom());
        byte[] client = {1, 2, 3};
        Message.OperatorLogin m = a.login("sled", CLIENT, op.publicKey().blob(), nonce, client, eph[1],
                op.sign(Authority.loginBytes(nonce, client, eph[1])));
        Credentials c = new Credentials(() -> op, java.util.Optional.empty());
        c.loggedIn(new Credentials.Identity(op.publicKey().id(), nonce, eph[0], m.expires(), "sled"));
        return c;
    }

    @Test
    void aChallengeIsSingleUseAndExpires() throws Exception {
        OperatorSigner op = key("op");
        Authority a = authority(op);
        byte[] nonce = a.challenge(CLIENT);
        byte[][] eph = Credentials.ephemeral(new SecureRandom());
        byte[] sig = op.sign(Authority.loginBytes(nonce, new byte[0], eph[1]));
        a.login("s", CLIENT, op.publicKey().blob(), nonce, new byte[0], eph[1], sig);
        Authority.Refusal used = assertThrows(Authority.Refusal.class, () -> a.login("s", CLIENT, op.publicKey().blob(), nonce,
                new byte[0], eph[1], sig));
        assertEquals("expired", used.code());
        byte[] late = a.challenge(CLIENT);
        now.addAndGet(Authority.CHALLENGE_MILLIS);
        assertEquals("expired", assertThrows(Authority.Refusal.class, () -> a.login("s", CLIENT, op.publicKey().blob(), late,
                new byte[0], eph[1], op.sign(Authority.loginBytes(late, new byte[0], eph[1])))).code());
    }

    /**
     * Issue 36: challenges are stateless, so 10,000 asked by strangers evict nobody's; a
     * challenge is good for the client it was given to, and a forged or altered one is refused.
     */
    @Test
    void challengesAreStatelessBoundToTheirClientAndNeverEvicted() throws Exception {
        OperatorSigner op = key("op");
        Authority a = authority(op);
        byte[] mine = a.challenge(CLIENT);
        for (int i = 0; i < 10_000; i++) {
            a.challenge("198.51.100." + (i % 250));
        }
        byte[][] eph = Credentials.ephemeral(new SecureRandom());
        byte[] other = a.challenge(CLIENT);
        assertEquals("expired", assertThrows(Authority.Refusal.class, () -> a.login("s", "203.0.113.9",
                op.publicKey().blob(), other, new byte[0], eph[1], op.sign(Authority.loginBytes(other, new byte[0],
                        eph[1])))).code(), "a challenge is good only for the client it was given to");
        byte[] forged = mine.clone();
        forged[5] ^= 1; // a later expiry, say
        assertEquals("expired", assertThrows(Authority.Refusal.class, () -> a.login("s", CLIENT, op.publicKey().blob(),
                forged, new byte[0], eph[1], op.sign(Authority.loginBytes(forged, new byte[0], eph[1])))).code());
        a.login("s", CLIENT, op.publicKey().blob(), mine, new byte[0], eph[1],
                op.sign(Authority.loginBytes(mine, new byte[0], eph[1])));
        assertEquals(1, a.identities().size(), "the first challenge still logs in after 10,000 others");
    }

    /**
     * Issue 36: revocations are kept on disk and read back before anything is served; one lifted
     * stays lifted when re-gossiped; a revocation and an unrevoke of an earlier one settle the
     * same on every sled whatever their order; a file that does not read stops the sled.
     */
    @Test
    void revocationsAreKeptOnDiskLiftedByIdAndSettleTheSameInAnyOrder() throws Exception {
        OperatorSigner op = key("op");
        authority(op);
        Path file = dir.resolve("revoked.json");
        KeyId k = op.publicKey().id();
        Authority a = new Authority(dir.resolve("operators"), now::get, Entropy.seeded(1), java.util.Optional.of(file));
        a.revoke(new Authority.Revocation(k, "admin", "r1"));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(file)));
        Authority again = new Authority(dir.resolve("operators"), now::get, Entropy.seeded(2), java.util.Optional.of(file));
        assertTrue(again.isRevoked(k), "read back");
        assertTrue(again.unrevoke(k, "admin2", "r1"));
        again.revoke(new Authority.Revocation(k, "admin", "r1"));
        assertFalse(again.isRevoked(k), "a lifted revocation re-gossiped stays lifted");
        assertFalse(new Authority(dir.resolve("operators"), now::get, Entropy.seeded(3), java.util.Optional.of(file))
                .isRevoked(k), "and after a restart");

        // r2 made while someone lifted r1: revoked on every sled, whatever the order.
        for (boolean unrevokeFirst : new boolean[] {true, false}) {
            Authority s = authority(op);
            s.revoke(new Authority.Revocation(k, "admin", "r1"));
            if (unrevokeFirst) {
                s.unrevoke(k, "admin2", "r1");
                s.revoke(new Authority.Revocation(k, "admin3", "r2"));
            } else {
                s.revoke(new Authority.Revocation(k, "admin3", "r2"));
                s.unrevoke(k, "admin2", "r1");
            }
            assertTrue(s.isRevoked(k), "unrevoke first: " + unrevokeFirst);
        }

        Files.writeString(file, "{\"revoked\": [{\"key\": 7}]}");
        java.io.IOException bad = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> new Authority(dir.resolve("operators"), now::get, Entropy.seeded(4), java.util.Optional.of(file)));
        assertTrue(bad.getMessage().contains(file.toString()), bad.getMessage());
    }

    /** What a sled tells a universe it enters: the live logins it accepted itself, with their evidence. */
    @Test
    void theLiveLoginsASledAcceptedAreWhatItTellsANewUniverse() throws Exception {
        OperatorSigner op = key("op");
        Authority a = authority(op);
        login(a, op);
        List<Message.OperatorLogin> mine = a.liveLoginsAcceptedBy("sled");
        assertEquals(1, mine.size());
        Authority other = authority(op);
        other.accept(mine.get(0));
        assertEquals(1, other.identities().size(), "another sled honours it again");
        assertTrue(a.liveLoginsAcceptedBy("elsewhere").isEmpty());
        now.addAndGet(Authority.IDLE_MILLIS);
        assertTrue(a.liveLoginsAcceptedBy("sled").isEmpty(), "an expired identity is not told again");
    }

    @Test
    void aWrongKeyOrSignatureIsRefused() throws Exception {
        OperatorSigner op = key("op");
        OperatorSigner other = key("other");
        Authority a = authority(op);
        byte[] nonce = a.challenge(CLIENT);
        byte[][] eph = Credentials.ephemeral(new SecureRandom());
        assertEquals("unknown-key", assertThrows(Authority.Refusal.class, () -> a.login("s", CLIENT, other.publicKey().blob(),
                nonce, new byte[0], eph[1], other.sign(Authority.loginBytes(nonce, new byte[0], eph[1])))).code());
        byte[] n2 = a.challenge(CLIENT);
        byte[] sig = op.sign(Authority.loginBytes(n2, new byte[0], eph[1]));
        sig[sig.length - 1] ^= 1;
        assertEquals("bad-signature", assertThrows(Authority.Refusal.class, () -> a.login("s", CLIENT, op.publicKey().blob(), n2,
                new byte[0], eph[1], sig)).code());
        assertEquals("unknown-key", assertThrows(Authority.Refusal.class, () -> a.login("s", CLIENT, new byte[] {0, 0, 0, 9, 'x'},
                a.challenge(CLIENT), new byte[0], eph[1], sig)).code());
        assertTrue(a.identities().isEmpty());
    }

    @Test
    void theSequenceWindowTakesLateRequestsOnceAndRefusesOlderOnes() throws Exception {
        OperatorSigner op = key("op");
        Authority a = authority(op);
        Credentials c = login(a, op);
        var id = c.identity().orElseThrow();
        java.util.function.LongFunction<String> header = seq -> {
            org.bouncycastle.crypto.signers.Ed25519Signer s = new org.bouncycastle.crypto.signers.Ed25519Signer();
            s.init(true, new org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters(id.ephemeralSecret(), 0));
            byte[] m = Authority.requestBytes(id.key(), id.nonce(), "rack", "sled-a", "GET", "/x", seq,
                    Authority.sha3(new byte[0]));
            s.update(m, 0, m.length);
            java.util.Base64.Encoder e = java.util.Base64.getUrlEncoder().withoutPadding();
            return "Sush key-id=" + id.key().codephrase() + ", nonce=" + e.encodeToString(id.nonce()) + ", seq=" + seq
                    + ", aud=" + e.encodeToString("sled-a".getBytes(java.nio.charset.StandardCharsets.UTF_8)) + ", sig="
                    + e.encodeToString(s.generateSignature());
        };
        assertTrue(ok(a, header.apply(1000)));
        assertTrue(ok(a, header.apply(990)), "late but inside the window");
        assertFalse(ok(a, header.apply(990)), "the same number twice");
        assertTrue(ok(a, header.apply(1000 - Authority.WINDOW + 1)), "the window's oldest slot");
        assertFalse(ok(a, header.apply(1000 - Authority.WINDOW)), "just outside the window");
        assertTrue(ok(a, header.apply(5000)), "a jump ahead");
        assertFalse(ok(a, header.apply(1000)), "left behind by the jump");
        assertTrue(ok(a, header.apply(5001)));
        assertFalse(ok(a, header.apply(-1)));
    }

    private static boolean ok(Authority a, String header) {
        try {
            a.authenticate(header, "GET", "/x", new byte[0], HERE);
            return true;
        } catch (Authority.Refusal r) {
            return false;
        }
    }

    @Test
    void identitiesEndWhenIdleOrOld() throws Exception {
        OperatorSigner op = key("op");
        Authority a = authority(op);
        Credentials c = login(a, op);
        assertTrue(ok(a, c.authorize("rack", "sled-a", "GET", "/x", new byte[0]).orElseThrow()));
        now.addAndGet(Authority.IDLE_MILLIS - 1);
        assertTrue(ok(a, c.authorize("rack", "sled-a", "GET", "/x", new byte[0]).orElseThrow()), "used within the idle time");
        now.addAndGet(Authority.IDLE_MILLIS);
        assertFalse(ok(a, c.authorize("rack", "sled-a", "GET", "/x", new byte[0]).orElseThrow()), "idle too long");
        Credentials d = login(a, op);
        for (long t = 0; t < Authority.MAX_MILLIS; t += Authority.IDLE_MILLIS / 2) {
            now.addAndGet(Authority.IDLE_MILLIS / 2);
            if (t + Authority.IDLE_MILLIS / 2 < Authority.MAX_MILLIS) {
                assertTrue(ok(a, d.authorize("rack", "sled-a", "GET", "/x", new byte[0]).orElseThrow()), "in use at " + t);
            }
        }
        assertFalse(ok(a, d.authorize("rack", "sled-a", "GET", "/x", new byte[0]).orElseThrow()), "past 8 hours, however busy");
    }

    @Test
    void aKeyTakenOutOfTheOperatorsFileEndsItsIdentities() throws Exception {
        OperatorSigner op = key("op");
        Authority a = authority(op);
        Credentials c = login(a, op);
        Files.writeString(dir.resolve("operators"), "# nobody\n");
        a.reload();
        assertFalse(ok(a, c.authorize("rack", "sled-a", "GET", "/x", new byte[0]).orElseThrow()));
    }

    /** A security-key signature as OpenSSH's PROTOCOL.u2f lays it out, made here with a software key. */
    private static byte[] skSignature(org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters k, String app,
            int flags, int counter, byte[] data) throws Exception {
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        java.nio.ByteBuffer signed = java.nio.ByteBuffer.allocate(69).put(sha.digest(app.getBytes(
                java.nio.charset.StandardCharsets.UTF_8))).put((byte) flags).putInt(counter).put(sha.digest(data));
        org.bouncycastle.crypto.signers.Ed25519Signer s = new org.bouncycastle.crypto.signers.Ed25519Signer();
        s.init(true, k);
        s.update(signed.array(), 0, 69);
        byte[] sig = s.generateSignature();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream d = new java.io.DataOutputStream(out);
        byte[] type = SshKey.SK_ED25519.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        d.writeInt(type.length);
        d.write(type);
        d.writeInt(sig.length);
        d.write(sig);
        d.writeByte(flags);
        d.writeInt(counter);
        return out.toByteArray();
    }

    @Test
    void aSecurityKeySignatureVerifiesOnlyWithUserPresence() throws Exception {
        org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters k =
                new org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters(new SecureRandom());
        java.io.ByteArrayOutputStream blob = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream d = new java.io.DataOutputStream(blob);
        for (byte[] f : new byte[][] {SshKey.SK_ED25519.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
            k.generatePublicKey().getEncoded(), "ssh:".getBytes(java.nio.charset.StandardCharsets.US_ASCII)}) {
            d.writeInt(f.length);
            d.write(f);
        }
        SshKey key = SshKey.fromBlob(blob.toByteArray());
        byte[] data = Authority.loginBytes(new byte[16], new byte[0], new byte[32]);
        assertTrue(key.verifies(data, skSignature(k, "ssh:", 0x01, 7, data)));
        assertFalse(key.verifies(data, skSignature(k, "ssh:", 0x00, 7, data)), "no user presence");
        assertFalse(key.verifies(data, skSignature(k, "other:", 0x01, 7, data)), "another application");
        byte[] tampered = skSignature(k, "ssh:", 0x01, 7, data);
        tampered[tampered.length - 1] ^= 1; // the counter the signature covers
        assertFalse(key.verifies(data, tampered));
    }

    @Test
    void malformedKeysAndOperatorLinesAreTypedErrors() throws Exception {
        assertThrows(SshKey.KeyException.class, () -> SshKey.fromBlob(new byte[] {0, 0, 0}));
        assertThrows(SshKey.KeyException.class, () -> SshKey.fromOpenSsh("ssh-rsa AAAAB3NzaC1yc2E="));
        OperatorSigner op = key("op");
        byte[] blob = op.publicKey().blob();
        byte[] longer = java.util.Arrays.copyOf(blob, blob.length + 1);
        assertThrows(SshKey.KeyException.class, () -> SshKey.fromBlob(longer));
        assertThrows(SshKey.KeyException.class, () -> SshKey.fromOpenSsh("ecdsa-sha2-nistp256 "
                + java.util.Base64.getEncoder().encodeToString(blob)));
        Files.writeString(dir.resolve("bad"), "ssh-ed25519 !!!\n");
        assertThrows(java.io.IOException.class, () -> new Authority(dir.resolve("bad"), now::get, Entropy.seeded(1)));
        assertFalse(op.publicKey().verifies(new byte[] {1}, new byte[] {0, 0, 0, 1}));
    }
}
