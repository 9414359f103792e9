package sush.projections.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import sush.projections.id.Chain;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;

class SignedJobTest {
    private static final SessionId SESSION = SessionIds.compute("p:s", new byte[32], new byte[] {1});
    private static final SessionId OTHER = SessionIds.compute("p:s", new byte[32], new byte[] {2});

    private static JobRequest request(String command) {
        return new JobRequest(SESSION, Chain.first(SESSION), command, "*", false);
    }

    @ParameterizedTest
    @EnumSource(SignatureAlgorithm.class)
    void aTrustedSignatureVerifies(SignatureAlgorithm algorithm) throws KeyException {
        SignerKey key = SignerKey.generate(algorithm, new SecureRandom());
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        SignedJob job = key.sign(request("uptime"));
        assertEquals(Optional.empty(), trust.check(job, SESSION));
        assertEquals(algorithm, job.algorithm());
    }

    @ParameterizedTest
    @EnumSource(SignatureAlgorithm.class)
    void everyRefusalNamesItsReason(SignatureAlgorithm algorithm) throws KeyException {
        SignerKey key = SignerKey.generate(algorithm, new SecureRandom());
        SignerKey stranger = SignerKey.generate(algorithm, new SecureRandom());
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        assertEquals(Optional.of(InvalidJobReason.UNKNOWN_KEY), trust.check(stranger.sign(request("uptime")), SESSION));
        SignedJob good = key.sign(request("uptime"));
        SignedJob tampered = new SignedJob(request("rm -rf /"), good.key(), good.algorithm(), good.signature());
        assertEquals(Optional.of(InvalidJobReason.BAD_SIGNATURE), trust.check(tampered, SESSION));
        assertEquals(Optional.of(InvalidJobReason.WRONG_SESSION), trust.check(good, OTHER));
        assertEquals(Optional.of(InvalidJobReason.BAD_COMMAND), trust.check(key.sign(request("")), SESSION));
        assertEquals(Optional.of(InvalidJobReason.BAD_COMMAND), trust.check(key.sign(request("-rf")), SESSION));
    }

    @Test
    void theDigestCoversEveryFieldIncludingDefaults() {
        JobRequest base = request("uptime");
        JobRequest concurrent = new JobRequest(SESSION, base.job(), "uptime", "*", true);
        JobRequest otherTarget = new JobRequest(SESSION, base.job(), "uptime", "0", false);
        assertFalse(Arrays.equals(base.digest(), concurrent.digest()));
        assertFalse(Arrays.equals(base.digest(), otherTarget.digest()));
        assertEquals(Chain.next(base.digest()), base.successor());
    }

    @ParameterizedTest
    @EnumSource(SignatureAlgorithm.class)
    void keysRoundTripThroughPem(SignatureAlgorithm algorithm) throws KeyException {
        SignerKey key = SignerKey.generate(algorithm, new SecureRandom());
        SignerKey again = SignerKey.fromPem(key.privatePem());
        assertEquals(key.id(), again.id());
        assertEquals(key.publicPem(), again.publicPem());
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        assertTrue(trust.keyIds().contains(key.id()));
        assertEquals(Optional.empty(), trust.check(again.sign(request("date")), SESSION));
    }

    @Test
    void ed25519SignaturesAreDeterministicAndEcdsaUsesRfc6979() throws KeyException {
        for (SignatureAlgorithm algorithm : SignatureAlgorithm.values()) {
            SignerKey key = SignerKey.generate(algorithm, new SecureRandom());
            assertArrayEquals(key.sign(request("x")).signature(), key.sign(request("x")).signature(), algorithm.name());
        }
    }

    @Test
    void unreadableKeysAreTypedErrors() {
        assertThrows(KeyException.class, () -> TrustStore.of(List.of("not a pem")));
        assertThrows(KeyException.class, () -> TrustStore.of(List.of(
                "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")));
        assertThrows(KeyException.class, () -> SignerKey.fromPem("-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----"));
    }

    @Test
    void theTrustStoreTakesKeysUpToItsBound() throws KeyException {
        List<String> pems = new ArrayList<>();
        for (int i = 0; i < TrustStore.MAX_KEYS; i++) {
            pems.add(SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom()).publicPem());
        }
        assertEquals(TrustStore.MAX_KEYS, TrustStore.of(pems).keyIds().size());
        pems.add(pems.get(0));
        assertThrows(KeyException.class, () -> TrustStore.of(pems));
    }

    /**
     * Remembered verdicts are the ones a fresh check gives, a tampered copy of a remembered job
     * included, and the memory stays within its bound: long commands fill a generation by bytes
     * (8 MiB) long before its count, and past two generations the oldest verdicts are checked
     * again, with the same answers.
     */
    @Test
    void rememberedVerdictsStayRightAndBounded() throws KeyException {
        SignerKey key = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        String longCommand = "echo " + "x".repeat(60_000);
        long perJob = 256L + 2L * (longCommand.length() + 1);
        int perGeneration = (int) ((TrustStore.VERDICT_BYTES_PER_GENERATION + perJob - 1) / perJob);
        List<SignedJob> jobs = new ArrayList<>();
        for (int i = 0; i < 3 * perGeneration; i++) {
            JobRequest r = new JobRequest(SESSION, Chain.first(SESSION), longCommand + i, "*", false);
            jobs.add(key.sign(r));
        }
        for (SignedJob j : jobs) {
            assertTrue(trust.signatureValid(j));
            assertTrue(trust.remembered() <= 2 * perGeneration, "bounded by bytes: " + trust.remembered());
            SignedJob tampered = new SignedJob(new JobRequest(SESSION, Chain.first(SESSION), j.request().command() + ";x",
                    "*", false), j.key(), j.algorithm(), j.signature());
            assertFalse(trust.signatureValid(tampered), "a remembered signature over other bytes");
        }
        assertTrue(trust.remembered() >= perGeneration / 2, "the newer verdicts are kept");
        for (SignedJob j : jobs) {
            assertEquals(Optional.empty(), trust.check(j, SESSION), "forgotten or not, the same answer");
        }
    }

    /** A generation also ends at its count: short jobs, one more than a generation holds. */
    @Test
    void rememberedVerdictsAreBoundedByCountToo() throws KeyException {
        SignerKey key = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        List<SignedJob> jobs = new ArrayList<>();
        for (int i = 0; i <= TrustStore.VERDICTS_PER_GENERATION; i++) {
            jobs.add(key.sign(new JobRequest(SESSION, Chain.first(SESSION), "echo " + i, "*", false)));
        }
        for (SignedJob j : jobs) {
            assertTrue(trust.signatureValid(j));
        }
        assertEquals(TrustStore.VERDICTS_PER_GENERATION + 1, trust.remembered(), "a full generation and a new one");
        assertTrue(trust.signatureValid(jobs.get(0)), "still remembered, and right");
        assertEquals(TrustStore.VERDICTS_PER_GENERATION + 1, trust.remembered());
    }

    @Test
    void signedJobsAreEqualByEveryFieldAndHashAlike() {
        SignerKey key = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        SignedJob a = key.sign(request("true"));
        SignedJob same = new SignedJob(a.request(), a.key(), a.algorithm(), a.signature().clone());
        assertEquals(a, same);
        assertEquals(a.hashCode(), same.hashCode());
        byte[] otherSignature = a.signature().clone();
        otherSignature[0] ^= 1;
        SignedJob resigned = new SignedJob(a.request(), a.key(), a.algorithm(), otherSignature);
        assertFalse(a.equals(resigned));
        assertFalse(a.hashCode() == resigned.hashCode(), "the signature is part of the hash");
        assertFalse(a.equals(key.sign(request("false"))));
        assertFalse(a.equals((Object) "a job"));
    }

    @Test
    void theConcurrentFlagIsPartOfTheDigest() {
        JobRequest sequential = request("true");
        JobRequest concurrent = new JobRequest(sequential.session(), sequential.job(), sequential.command(),
                sequential.target(), true);
        assertFalse(Arrays.equals(sequential.digest(), concurrent.digest()));
    }

    @Test
    void aRememberedVerdictIsTheVerdictEvenWhenItIsARefusal() throws Exception {
        SignerKey trusted = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        SignerKey stranger = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        TrustStore store = TrustStore.of(List.of(trusted.publicPem()));
        SignedJob forged = stranger.sign(request("true"));
        assertFalse(store.signatureValid(forged));
        assertFalse(store.signatureValid(forged), "asked again: remembered, still refused");
        SignedJob good = trusted.sign(request("true"));
        assertTrue(store.signatureValid(good));
        assertTrue(store.signatureValid(good));
        assertEquals(2, store.remembered());
    }

    @Test
    void aRequestsDigestIsPinned() {
        // The bytes a signer signs: any change to their framing (a field, its order, the
        // concurrent flag's value) changes this pin and every signature made before it.
        assertEquals("51f80f9e9225dab669e7923b6ce68ffcfe4a7076a3fffc0465b317213784a362", HexFormat.of().formatHex(request("true").digest()));
    }

    /**
     * D-031: a request asking no limit hashes as before limits existed (the pin above); each
     * asked limit is signed, so changing any one changes the digest and the chain position.
     */
    @Test
    void askedLimitsAreSignedAndNoLimitsHashAsBefore() {
        JobRequest none = request("true");
        JobRequest explicitNone = new JobRequest(none.session(), none.job(), "true", "*", false, JobLimits.NONE);
        assertEquals(HexFormat.of().formatHex(none.digest()), HexFormat.of().formatHex(
                explicitNone.digest()));
        Set<String> digests = new HashSet<>();
        digests.add(HexFormat.of().formatHex(none.digest()));
        long[][] asked = {{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 0, 1},
            {2, 0, 0, 0, 0}};
        for (long[] a : asked) {
            JobRequest r = new JobRequest(none.session(), none.job(), "true", "*", false, new JobLimits(a[0], a[1], a[2],
                    a[3], a[4]));
            assertTrue(digests.add(HexFormat.of().formatHex(r.digest())), Arrays.toString(a));
        }
        for (JobMode m : new JobMode[] {JobMode.INTERACTIVE, JobMode.STREAMING}) {
            JobRequest r = new JobRequest(none.session(), none.job(), "true", "*", false, JobLimits.NONE, m);
            assertTrue(digests.add(HexFormat.of().formatHex(r.digest())), m.name());
        }
        assertEquals(HexFormat.of().formatHex(none.digest()), HexFormat.of().formatHex(
                new JobRequest(none.session(), none.job(), "true", "*", false, JobLimits.NONE, JobMode.RECORDED)
                        .digest()), "recorded is the default and hashes as before modes");
        assertEquals(List.of("cpu 20 s is above this sled's maximum 10 s"), new JobLimits(0, 5, 20, 0, 0).above(
                new JobLimits(0, 0, 10, 0, 0)));
        assertEquals(List.of(), new JobLimits(1000, 5, 10, 0, 0).above(new JobLimits(1000, 0, 10, 0, 0)));
        assertThrows(IllegalArgumentException.class, () -> new JobLimits(-1, 0, 0, 0, 0));
    }

    @Test
    void jobsWithOneSignatureButDifferentRequestsHashApart() {
        byte[] signature = new byte[64];
        KeyId key = new KeyId(new byte[11]);
        SignedJob a = new SignedJob(request("true"), key, SignatureAlgorithm.ED25519, signature);
        SignedJob b = new SignedJob(request("false"), key, SignatureAlgorithm.ED25519, signature);
        assertFalse(a.hashCode() == b.hashCode());
    }

    /**
     * D-031, D-034: a request asking limits or a mode other than recorded is hashed with the
     * concurrent flag's byte like any other. Computed independently (Python hashlib.sha3_256 over
     * the length-prefixed tag and fields).
     */
    @Test
    void theDigestsOfRequestsWithLimitsOrAModeArePinned() {
        JobRequest none = request("true");
        assertEquals("1437c4a9f7ee82dd2ee90ca3d3dba22db406754d9f63c8f7a97b772fb9b99a16", HexFormat.of().formatHex(
                new JobRequest(SESSION, none.job(), "true", "*", false, new JobLimits(60_000, 0, 0, 0, 0)).digest()));
        assertEquals("ce8af1765f7bf77ce854793e374de7b5be4506b5b12d52822fabe525384b165b", HexFormat.of().formatHex(
                new JobRequest(SESSION, none.job(), "true", "*", true, JobLimits.NONE, JobMode.STREAMING).digest()));
    }

    @Test
    void aModeIsParsedFromItsWireNameOnly() {
        for (JobMode m : JobMode.values()) {
            assertEquals(m, JobMode.parse(m.wire()));
        }
        assertEquals(JobMode.INTERACTIVE, JobMode.parse("interactive"));
        assertThrows(IllegalArgumentException.class, () -> JobMode.parse("INTERACTIVE"));
        assertThrows(IllegalArgumentException.class, () -> JobMode.parse("tty"));
    }

    @Test
    void eachLimitIsReadByItsKindAndJudgedAgainstItsOwnMaximum() {
        JobLimits asked = new JobLimits(1, 2, 3, 4, 5);
        long expected = 1;
        for (JobLimits.Kind k : JobLimits.Kind.values()) {
            assertEquals(expected++, asked.get(k), k.wire());
        }
        assertEquals(List.of("address-space 4096 bytes is above this sled's maximum 1024 bytes"),
                new JobLimits(0, 0, 0, 4096, 0).above(new JobLimits(0, 0, 0, 1024, 0)));
    }
}
