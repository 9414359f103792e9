package sush.projections.job;

import java.io.IOException;
import java.util.Base64;

import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.Signer;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.DSADigestSigner;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.bouncycastle.crypto.util.PublicKeyFactory;
import org.bouncycastle.crypto.util.SubjectPublicKeyInfoFactory;
import sush.projections.id.Hashes;
import sush.projections.id.KeyId;

/** PEM, key ids and signers shared by signing and verifying (Bouncy Castle lightweight API). */
final class Keys {
    static final String PUBLIC_LABEL = "PUBLIC KEY";
    static final String PRIVATE_LABEL = "PRIVATE KEY";
    /** Bound on a PEM text we agree to parse. */
    static final int MAX_PEM_CHARS = 16 * 1024;

    private Keys() {
    }

    /** KeyId = low 88 bits of SHA3-256 of the key's DER SubjectPublicKeyInfo. */
    static KeyId keyId(byte[] spkiDer) {
        return new KeyId(Hashes.low88(Hashes.sha3Raw(spkiDer)));
    }

    static byte[] spki(AsymmetricKeyParameter publicKey) throws KeyException {
        try {
            return SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(publicKey).getEncoded("DER");
        } catch (IOException e) {
            throw new KeyException("cannot encode public key", e);
        }
    }

    static SignatureAlgorithm algorithmOf(AsymmetricKeyParameter key) throws KeyException {
        if (key instanceof Ed25519PublicKeyParameters || key instanceof Ed25519PrivateKeyParameters) {
            return SignatureAlgorithm.ED25519;
        }
        if (key instanceof ECPublicKeyParameters || key instanceof ECPrivateKeyParameters) {
            return SignatureAlgorithm.ECDSA_P256;
        }
        throw new KeyException("unsupported key type " + key.getClass().getSimpleName()
                + "; a signer key is Ed25519 or ECDSA P-256");
    }

    static Signer signer(SignatureAlgorithm algorithm) {
        return algorithm == SignatureAlgorithm.ED25519 ? new Ed25519Signer()
                : new DSADigestSigner(new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest())), new SHA256Digest());
    }

    static byte[] sign(SignatureAlgorithm algorithm, AsymmetricKeyParameter privateKey, byte[] message) {
        Signer s = signer(algorithm);
        s.init(true, privateKey);
        s.update(message, 0, message.length);
        try {
            return s.generateSignature();
        } catch (CryptoException e) {
            throw new IllegalStateException("signing failed with a valid key", e);
        }
    }

    static boolean verify(SignatureAlgorithm algorithm, AsymmetricKeyParameter publicKey, byte[] message,
            byte[] signature) {
        Signer s = signer(algorithm);
        s.init(false, publicKey);
        s.update(message, 0, message.length);
        try {
            return s.verifySignature(signature);
        } catch (RuntimeException e) {
            return false;
        }
    }

    static AsymmetricKeyParameter publicFromSpki(byte[] der) throws KeyException {
        try {
            AsymmetricKeyParameter key = PublicKeyFactory.createKey(SubjectPublicKeyInfo.getInstance(der));
            if (key.isPrivate()) {
                throw new KeyException("expected a public key");
            }
            if (key instanceof ECPublicKeyParameters && !isP256((ECPublicKeyParameters) key)) {
                throw new KeyException("only the P-256 curve is accepted for ECDSA");
            }
            algorithmOf(key);
            return key;
        } catch (IOException | IllegalArgumentException e) {
            throw new KeyException("not a DER SubjectPublicKeyInfo: " + e.getMessage(), e);
        }
    }

    /** The key's domain is exactly secp256r1 (not just any 256-bit curve). */
    private static boolean isP256(ECPublicKeyParameters key) {
        X9ECParameters p256 =
                ECNamedCurveTable.getByOID(SECObjectIdentifiers.secp256r1);
        return key.getParameters().getCurve().equals(p256.getCurve()) && key.getParameters().getG().equals(p256.getG())
                && key.getParameters().getN().equals(p256.getN());
    }

    static String toPem(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    static byte[] fromPem(String label, String pem) throws KeyException {
        if (pem.length() > MAX_PEM_CHARS) {
            throw new KeyException("PEM text over " + MAX_PEM_CHARS + " characters");
        }
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw new KeyException("no " + label + " PEM block");
        }
        try {
            return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to).trim());
        } catch (IllegalArgumentException e) {
            throw new KeyException("PEM body is not base64", e);
        }
    }
}
