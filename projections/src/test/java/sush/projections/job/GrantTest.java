package sush.projections.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import sush.projections.id.KeyId;

/** Grants of the signed ordering: computed session ids, signatures checked against the trust store. */
class GrantTest {
    private static final SignerKey KEY = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
    private static final SignerKey P256 = SignerKey.generate(SignatureAlgorithm.ECDSA_P256, new SecureRandom());

    private static byte[] nonce(int b) {
        byte[] n = new byte[Grant.NONCE_BYTES];
        n[0] = (byte) b;
        return n;
    }

    @Test
    void theSessionIdIsAFunctionOfSignerEpochAndNonceAndIsPinned() {
        KeyId signer = new KeyId(new byte[11]);
        Grant g = new Grant(1_764_600_000_000L, signer, "operator", nonce(1));
        // Computed independently: Python hashlib.sha3_256 over the length-prefixed tag and fields.
        assertEquals("9a281865bf69f05b4c602f", HexFormat.of().formatHex(g.session().toBytes()));
        assertEquals(g.session(), new Grant(1_764_600_000_000L, signer, "someone else", nonce(1)).session(),
                "the starter is signed, but not part of the id");
        assertNotEquals(g.session(), new Grant(1_764_600_000_001L, signer, "operator", nonce(1)).session());
        assertNotEquals(g.session(), new Grant(1_764_600_000_000L, signer, "operator", nonce(2)).session());
        byte[] other = new byte[11];
        other[10] = 1;
        assertNotEquals(g.session(), new Grant(1_764_600_000_000L, new KeyId(other), "operator", nonce(1)).session());
        assertEquals(g.rank().session(), g.session());
        assertEquals(1_764_600_000_000L, g.rank().epoch());
    }

    @Test
    void theDigestCoversEveryField() {
        Grant g = new Grant(5, KEY.id(), "operator", nonce(1));
        List<Grant> others = List.of(new Grant(6, KEY.id(), "operator", nonce(1)),
                new Grant(5, P256.id(), "operator", nonce(1)), new Grant(5, KEY.id(), "operatoR", nonce(1)),
                new Grant(5, KEY.id(), "operator", nonce(3)));
        for (Grant o : others) {
            assertTrue(!Arrays.equals(g.digest(), o.digest()), o.toString());
            assertNotEquals(g, o);
        }
        assertEquals(g, new Grant(5, KEY.id(), "operator", nonce(1)));
        assertEquals(g.hashCode(), new Grant(5, KEY.id(), "operator", nonce(1)).hashCode());
    }

    @Test
    void aTrustedSignersGrantVerifiesAndAnythingElseIsRefusedWithItsReason() throws Exception {
        TrustStore trust = TrustStore.of(List.of(KEY.publicPem(), P256.publicPem()));
        for (SignerKey k : List.of(KEY, P256)) {
            SignedGrant good = k.sign(new Grant(7, k.id(), "operator", nonce(4)));
            assertEquals(Optional.empty(), trust.grant(good));
            byte[] bad = good.signature();
            bad[bad.length - 1] ^= 1;
            assertEquals(Optional.of(InvalidJobReason.BAD_SIGNATURE),
                    trust.grant(new SignedGrant(good.grant(), good.algorithm(), bad)));
            Grant altered = new Grant(8, k.id(), "operator", nonce(4));
            assertEquals(Optional.of(InvalidJobReason.BAD_SIGNATURE),
                    trust.grant(new SignedGrant(altered, good.algorithm(), good.signature())), "signed epoch");
        }
        SignedGrant wrongAlgorithm = new SignedGrant(KEY.sign(new Grant(7, KEY.id(), "o", nonce(4))).grant(),
                SignatureAlgorithm.ECDSA_P256, KEY.sign(new Grant(7, KEY.id(), "o", nonce(4))).signature());
        assertEquals(Optional.of(InvalidJobReason.BAD_SIGNATURE), trust.grant(wrongAlgorithm));
        SignerKey stranger = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        assertEquals(Optional.of(InvalidJobReason.UNKNOWN_KEY),
                trust.grant(stranger.sign(new Grant(7, stranger.id(), "operator", nonce(4)))));
        assertThrows(IllegalArgumentException.class, () -> KEY.sign(new Grant(7, P256.id(), "operator", nonce(4))),
                "a key signs only its own grants");
    }

    @Test
    void malformedGrantsCannotBeBuilt() {
        assertThrows(IllegalArgumentException.class, () -> new Grant(-1, KEY.id(), "o", nonce(1)));
        assertThrows(IllegalArgumentException.class, () -> new Grant(1, KEY.id(), "", nonce(1)));
        assertThrows(IllegalArgumentException.class, () -> new Grant(1, KEY.id(), "x".repeat(129), nonce(1)));
        assertThrows(IllegalArgumentException.class, () -> new Grant(1, KEY.id(), "o", new byte[31]));
        byte[] n = nonce(9);
        Grant g = new Grant(1, KEY.id(), "o", n);
        n[0] = 0;
        assertEquals(9, g.clientNonce()[0], "the grant keeps its own copy");
    }

    @Test
    void boundsAreInclusiveAndSignedGrantsCompareByEveryField() {
        Grant zero = new Grant(0, KEY.id(), "x".repeat(Grant.MAX_STARTER_CHARS), nonce(1));
        assertEquals(0, zero.epoch());
        assertEquals(1, new Grant(1, KEY.id(), "o", nonce(1)).starter().length());
        SignedGrant a = KEY.sign(new Grant(7, KEY.id(), "o", nonce(1)));
        SignedGrant same = new SignedGrant(a.grant(), a.algorithm(), a.signature());
        assertEquals(a, same);
        assertEquals(a.hashCode(), same.hashCode());
        byte[] flipped = a.signature();
        flipped[0] ^= 1;
        SignedGrant otherSignature = new SignedGrant(a.grant(), a.algorithm(), flipped);
        SignedGrant otherGrant = new SignedGrant(new Grant(8, KEY.id(), "o", nonce(1)), a.algorithm(), a.signature());
        SignedGrant otherAlgorithm = new SignedGrant(a.grant(), SignatureAlgorithm.ECDSA_P256, a.signature());
        for (SignedGrant o : List.of(otherSignature, otherGrant, otherAlgorithm)) {
            assertNotEquals(a, o);
        }
        assertNotEquals(a.hashCode(), otherSignature.hashCode());
        assertNotEquals(a.hashCode(), otherGrant.hashCode());
        assertNotEquals(a, a.grant());
        byte[] sig = a.signature();
        sig[1] ^= 1;
        assertNotEquals(sig[1], a.signature()[1], "the signed grant keeps its own copy");
        assertNotEquals(new Grant(7, KEY.id(), "o", nonce(1)).hashCode(), new Grant(7, KEY.id(), "o", nonce(2)).hashCode());
    }
}
