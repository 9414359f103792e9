package sush.projections.job;

import java.io.IOException;
import java.security.SecureRandom;

import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.generators.ECKeyPairGenerator;
import org.bouncycastle.crypto.generators.Ed25519KeyPairGenerator;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.ECKeyGenerationParameters;
import org.bouncycastle.crypto.params.ECNamedDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.params.Ed25519KeyGenerationParameters;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.PrivateKeyInfoFactory;
import sush.projections.id.KeyId;

/** A signer's private key: signs job requests (the operator client and tests; never a sled). */
public final class SignerKey {
    private final SignatureAlgorithm algorithm;
    private final AsymmetricKeyParameter privateKey;
    private final AsymmetricKeyParameter publicKey;
    private final KeyId id;

    private SignerKey(AsymmetricKeyParameter privateKey, AsymmetricKeyParameter publicKey) throws KeyException {
        this.algorithm = Keys.algorithmOf(privateKey);
        this.privateKey = privateKey;
        this.publicKey = publicKey;
        this.id = Keys.keyId(Keys.spki(publicKey));
    }

    public static SignerKey generate(SignatureAlgorithm algorithm, SecureRandom random) {
        try {
            if (algorithm == SignatureAlgorithm.ED25519) {
                Ed25519KeyPairGenerator gen = new Ed25519KeyPairGenerator();
                gen.init(new Ed25519KeyGenerationParameters(random));
                AsymmetricCipherKeyPair pair = gen.generateKeyPair();
                return new SignerKey(pair.getPrivate(), pair.getPublic());
            }
            X9ECParameters curve = ECNamedCurveTable.getByOID(SECObjectIdentifiers.secp256r1);
            ECKeyPairGenerator gen = new ECKeyPairGenerator();
            gen.init(new ECKeyGenerationParameters(new ECNamedDomainParameters(SECObjectIdentifiers.secp256r1, curve),
                    random));
            AsymmetricCipherKeyPair pair = gen.generateKeyPair();
            return new SignerKey(pair.getPrivate(), pair.getPublic());
        } catch (KeyException e) {
            throw new IllegalStateException("a freshly generated key is supported", e);
        }
    }

    /** Reads a PKCS#8 PEM private key. */
    public static SignerKey fromPem(String pem) throws KeyException {
        try {
            AsymmetricKeyParameter key = PrivateKeyFactory.createKey(Keys.fromPem(Keys.PRIVATE_LABEL, pem));
            if (key instanceof Ed25519PrivateKeyParameters) {
                return new SignerKey(key, ((Ed25519PrivateKeyParameters) key).generatePublicKey());
            }
            if (key instanceof ECPrivateKeyParameters) {
                ECPrivateKeyParameters ec = (ECPrivateKeyParameters) key;
                var q = ec.getParameters().getG().multiply(ec.getD()).normalize();
                return new SignerKey(key, new ECPublicKeyParameters(q, ec.getParameters()));
            }
            throw new KeyException("unsupported private key " + key.getClass().getSimpleName());
        } catch (IOException | IllegalArgumentException e) {
            throw new KeyException("not a PKCS#8 private key: " + e.getMessage(), e);
        }
    }

    public SignedJob sign(JobRequest request) {
        return new SignedJob(request, id, algorithm, Keys.sign(algorithm, privateKey, request.digest()));
    }

    /** Signs a grant of this key (its signer must be this key's id). */
    public SignedGrant sign(Grant grant) {
        if (!grant.signer().equals(id)) {
            throw new IllegalArgumentException("a grant of signer " + grant.signer() + " handed to key " + id);
        }
        return new SignedGrant(grant, algorithm, Keys.sign(algorithm, privateKey, grant.digest()));
    }

    public KeyId id() {
        return id;
    }

    public SignatureAlgorithm algorithm() {
        return algorithm;
    }

    public String publicPem() throws KeyException {
        return Keys.toPem(Keys.PUBLIC_LABEL, Keys.spki(publicKey));
    }

    public String privatePem() throws KeyException {
        try {
            return Keys.toPem(Keys.PRIVATE_LABEL, PrivateKeyInfoFactory.createPrivateKeyInfo(privateKey).getEncoded("DER"));
        } catch (IOException e) {
            throw new KeyException("cannot encode private key", e);
        }
    }
}
