package sush.projections.job;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import sush.projections.id.KeyId;

/** The signer public keys a sled trusts, by key id; checks signed jobs before anything runs. */
public final class TrustStore implements Signatures {
    /** Bound on trusted keys: a rack trusts a handful of support signers. */
    public static final int MAX_KEYS = 64;

    /**
     * Bound on remembered signature verdicts, per generation (two are kept): more than the jobs
     * that can be in flight between the ingress stage that checks ahead and the fold (at most
     * 320 deliveries: 64 read ahead, 256 prefetched). Each verdict holds its whole signed job, so
     * this memory fills with the jobs a sled sees: at 16,384 per generation (before issue 39's
     * soak) it grew by one signed job per job for the first 32,768 jobs. A verdict forgotten only
     * costs a second check.
     */
    public static final int VERDICTS_PER_GENERATION = 1_024;
    /** Bound on the bytes one generation holds (commands may be long): 1 MiB. */
    public static final long VERDICT_BYTES_PER_GENERATION = 1L << 20;

    private final Map<KeyId, Trusted> keys;
    /**
     * Verdicts of signatures already checked, by the whole signed job (request, key, algorithm,
     * signature: every byte the signature covers). Verification is a pure function of the job
     * and this store, so a remembered verdict is the one a fresh check gives: the memo changes
     * only when the work is done, never the answer (D-019). Bounded: when the young generation
     * is full it becomes the old one and the older is dropped; a miss just checks again.
     */
    private volatile Generation young = new Generation();
    private volatile Generation old = new Generation();

    private TrustStore(Map<KeyId, Trusted> keys) {
        this.keys = new ConcurrentHashMap<>(keys);
        this.initial = Set.copyOf(keys.keySet());
    }

    /** The keys of {@link #of}: the sled's initial list ({@code --trust}). */
    private final Set<KeyId> initial;
    /** Keys revoked rack-wide (issue 41): never trusted again. */
    private final Set<KeyId> revoked = ConcurrentHashMap.newKeySet();
    /** Keys added rack-wide (issue 41), by the change that added them. */
    private final Map<KeyId, SignerTrust> added = new ConcurrentHashMap<>();
    /** Who may change the keys: a change its operator signed, that operator in this sled's file. */
    private volatile Predicate<SignerTrust> authorized = m -> false;
    /** Changes applied, in the order they were (what the daemon keeps on disk and gossips again). */
    private final List<SignerTrust> applied = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Changes are applied from now on when {@code who} says their operator may make them. */
    public TrustStore authorizingChangesWith(Predicate<SignerTrust> who) {
        this.authorized = Objects.requireNonNull(who, "who");
        return this;
    }

    /**
     * Applies {@code m} if its operator may make it (issue 41): an addition trusts its key unless
     * that key was revoked; a revocation ends the key for good. Revocations win over additions
     * whatever their order, so every sled that holds the same changes trusts the same keys.
     * Remembered verdicts go (a key added makes jobs valid that were not). True if it changed
     * anything.
     */
    @Override
    public void change(SignerTrust m) {
        apply(m);
    }

    /** As {@link #change}; whether the store changed. */
    public synchronized boolean apply(SignerTrust m) {
        if (!authorized.test(m)) {
            return false;
        }
        boolean changed;
        if (m.add()) {
            if (revoked.contains(m.key()) || keys.containsKey(m.key()) || keys.size() >= MAX_KEYS) {
                return false;
            }
            Trusted t;
            try {
                AsymmetricKeyParameter key = Keys.publicFromSpki(m.spki());
                t = new Trusted(Keys.algorithmOf(key), key);
            } catch (KeyException e) {
                return false;
            }
            if (!Keys.keyId(m.spki()).equals(m.key())) {
                return false;
            }
            keys.put(m.key(), t);
            added.put(m.key(), m);
            changed = true;
        } else {
            changed = revoked.add(m.key());
            keys.remove(m.key());
        }
        if (changed) {
            applied.add(m);
            young = new Generation();
            old = new Generation();
        }
        return changed;
    }

    @Override
    public boolean revoked(SignedJob job) {
        return revoked.contains(job.key());
    }

    /** The keys of the initial list ({@code --trust}). */
    public Set<KeyId> initialKeyIds() {
        return initial;
    }

    /** The keys revoked rack-wide. */
    public Set<KeyId> revokedKeyIds() {
        return Set.copyOf(revoked);
    }

    /** The changes applied, in order. */
    public List<SignerTrust> applied() {
        return List.copyOf(applied);
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
        return Set.copyOf(keys.keySet());
    }

    @Override
    public Optional<InvalidJobReason> signature(SignedJob job) {
        if (revoked.contains(job.key())) {
            return Optional.of(InvalidJobReason.REVOKED_SIGNER);
        }
        if (!keys.containsKey(job.key())) {
            return Optional.of(InvalidJobReason.UNKNOWN_KEY);
        }
        return signatureValid(job) ? Optional.empty() : Optional.of(InvalidJobReason.BAD_SIGNATURE);
    }

    /**
     * Whether {@code job} carries a good signature of a key this store trusts, with the key's
     * algorithm. Computed once per signed job while it is remembered; safe from any thread, so
     * an ingress stage can check jobs ahead, on other cores, of the single-threaded fold.
     */
    public boolean signatureValid(SignedJob job) {
        Boolean known = young.verdicts.get(job);
        if (known == null) {
            known = old.verdicts.get(job);
        }
        if (known != null) {
            return known;
        }
        Generation at = young;
        Trusted key = keys.get(job.key());
        if (key == null) {
            // Issue 41: the key may be added meanwhile; its jobs then verify. Remembered only if no
            // change came since this check began (a change replaces the generations, under this lock).
            synchronized (this) {
                if (young == at) {
                    remember(job, false);
                }
            }
            return false;
        }
        boolean valid = key.algorithm == job.algorithm()
                && Keys.verify(key.algorithm, key.key, job.request().digest(), job.signature());
        remember(job, valid);
        return valid;
    }

    /**
     * Why {@code grant} is not a valid grant of a key this store trusts (its signer), if it is
     * not. Grants are few (one per session): checked afresh, never remembered.
     */
    @Override
    public Optional<InvalidJobReason> grant(SignedGrant grant) {
        if (revoked.contains(grant.grant().signer())) {
            return Optional.of(InvalidJobReason.REVOKED_SIGNER);
        }
        Trusted key = keys.get(grant.grant().signer());
        if (key == null) {
            return Optional.of(InvalidJobReason.UNKNOWN_KEY);
        }
        return key.algorithm == grant.algorithm() && Keys.verify(key.algorithm, key.key, grant.grant().digest(),
                grant.signature()) ? Optional.empty() : Optional.of(InvalidJobReason.BAD_SIGNATURE);
    }

    /** Verdicts remembered now (both generations); for tests and measurements. */
    public int remembered() {
        return young.verdicts.size() + old.verdicts.size();
    }

    private void remember(SignedJob job, boolean valid) {
        Generation y = young;
        if (y.verdicts.put(job, valid) == null) {
            long bytes = y.bytes.addAndGet(256L + 2L * (job.request().command().length() + job.request().target().length()));
            if (y.verdicts.size() >= VERDICTS_PER_GENERATION || bytes >= VERDICT_BYTES_PER_GENERATION) {
                synchronized (this) {
                    if (young == y) {
                        old = y;
                        young = new Generation();
                    }
                }
            }
        }
    }

    /** One generation of remembered verdicts and the bytes it holds (about). */
    private static final class Generation {
        final Map<SignedJob, Boolean> verdicts = new ConcurrentHashMap<>();
        final AtomicLong bytes = new AtomicLong();
    }

    /** One trusted key. */
    private record Trusted(SignatureAlgorithm algorithm, AsymmetricKeyParameter key) {
    }
}
