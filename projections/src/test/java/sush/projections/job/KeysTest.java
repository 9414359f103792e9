package sush.projections.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.List;
import java.util.Set;

import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.crypto.generators.ECKeyPairGenerator;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.ECKeyGenerationParameters;
import org.bouncycastle.crypto.params.ECNamedDomainParameters;
import org.junit.jupiter.api.Test;

import sush.projections.id.Chain;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;

/**
 * What a signer key may be and how its text is read: Ed25519 or ECDSA on P-256 exactly (not any
 * 256-bit curve), PEM up to its bound and not a character more, and a signature that cannot be
 * read is refused, never thrown.
 */
class KeysTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final SessionId S = SessionIds.compute("p:s", new byte[SessionIds.NONCE_BYTES], new byte[] {1});

    @Test
    void anEcdsaKeyOnAnotherCurveOfTheSameSizeIsRefused() throws KeyException {
        ECKeyPairGenerator g = new ECKeyPairGenerator();
        g.init(new ECKeyGenerationParameters(new ECNamedDomainParameters(SECObjectIdentifiers.secp256k1,
                ECNamedCurveTable.getByOID(SECObjectIdentifiers.secp256k1)), RANDOM));
        String secp256k1 = Keys.toPem(Keys.PUBLIC_LABEL, Keys.spki(g.generateKeyPair().getPublic()));
        KeyException e = assertThrows(KeyException.class, () -> TrustStore.of(List.of(secp256k1)));
        assertTrue(e.getMessage().contains("P-256"), e.getMessage());
        SignerKey p256 = SignerKey.generate(SignatureAlgorithm.ECDSA_P256, RANDOM);
        assertEquals(Set.of(p256.id()), TrustStore.of(List.of(p256.publicPem())).keyIds());
    }

    @Test
    void aPemTextIsReadUpToItsBoundAndNotACharacterMore() throws KeyException {
        SignerKey key = SignerKey.generate(SignatureAlgorithm.ED25519, RANDOM);
        String pem = key.publicPem();
        String atBound = pem + "\n".repeat(Keys.MAX_PEM_CHARS - pem.length());
        assertEquals(Keys.MAX_PEM_CHARS, atBound.length());
        assertEquals(Set.of(key.id()), TrustStore.of(List.of(atBound)).keyIds());
        assertThrows(KeyException.class, () -> TrustStore.of(List.of(atBound + "\n")));
    }

    @Test
    void aSignatureThatCannotBeReadIsRefusedNotThrown() throws KeyException {
        SignerKey key = SignerKey.generate(SignatureAlgorithm.ED25519, RANDOM);
        AsymmetricKeyParameter publicKey = Keys.publicFromSpki(Keys.fromPem(Keys.PUBLIC_LABEL, key.publicPem()));
        JobRequest r = new JobRequest(S, Chain.first(S), "true", "*", false);
        assertTrue(Keys.verify(SignatureAlgorithm.ED25519, publicKey, r.digest(), key.sign(r).signature()));
        assertFalse(Keys.verify(SignatureAlgorithm.ED25519, publicKey, r.digest(), null));
    }

    @Test
    void aKeySaysItsAlgorithm() throws KeyException {
        for (SignatureAlgorithm algorithm : SignatureAlgorithm.values()) {
            SignerKey key = SignerKey.generate(algorithm, RANDOM);
            assertEquals(algorithm, key.algorithm());
            assertEquals(algorithm, SignerKey.fromPem(key.privatePem()).algorithm());
        }
    }
}
