package sush.projections.job;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.bouncycastle.crypto.params.AsymmetricKeyParameter;

import sush.projections.id.KeyId;
import sush.projections.id.SessionId;

/** The signer public keys a sled trusts, by key id; checks signed jobs before anything runs. */
public final class TrustStore {
    /** Bound on trusted keys: a rack trusts a handful of support signers. */
    public static final int MAX_KEYS = 64;

    private final Map<KeyId, Trusted> keys;

    private TrustStore(Map<KeyId, Trusted> keys) {
        this.keys = Map.copyOf(keys);
    }

    /** Trusts each PEM public key (SubjectPublicKeyInfo, Ed25519 or ECDSA P-256). */
    public static TrustStore of(List<String> publicPems) throws KeyException {
        if (publicPems.size() > MAX_KEYS) {
            throw new KeyException(publicPems.size() + " keys over the bound of " + MAX_KEYS);
        }
        Map<KeyId, Trusted> keys = new HashMap<>();
        for (String pem : publicPems) {
            byte[] der = Keys.fromPem(Keys.PUBLIC_LABEL, pem);
            AsymmetricKeyParameter key = Keys.publicFromSpki(der);
            keys.put(Keys.keyId(der), new Trusted(Keys.algorithmOf(key), key));
        }
        return new TrustStore(keys);
    }

    public Set<KeyId> keyIds() {
        return keys.keySet();
    }

    /**
     * The first reason to refuse {@code job} when submitted to {@code session}, or empty when it
     * may run (its chain position is checked where the chain is known).
     */
    public Optional<InvalidJobReason> check(SignedJob job, SessionId session) {
        Trusted key = keys.get(job.key());
        if (key == null) {
            return Optional.of(InvalidJobReason.UNKNOWN_KEY);
        }
        if (key.algorithm != job.algorithm()
                || !Keys.verify(key.algorithm, key.key, job.request().digest(), job.signature())) {
            return Optional.of(InvalidJobReason.BAD_SIGNATURE);
        }
        if (!job.request().session().equals(session)) {
            return Optional.of(InvalidJobReason.WRONG_SESSION);
        }
        String command = job.request().command();
        if (command.isBlank() || command.startsWith("-")) {
            return Optional.of(InvalidJobReason.BAD_COMMAND);
        }
        return Optional.empty();
    }

    /** One trusted key. */
    private record Trusted(SignatureAlgorithm algorithm, AsymmetricKeyParameter key) {
    }
}
