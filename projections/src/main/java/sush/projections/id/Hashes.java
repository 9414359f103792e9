package sush.projections.id;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

import org.bouncycastle.crypto.digests.SHA3Digest;

/**
 * SHA3-256 over labelled, length-prefixed fields, so that no two field lists share an input;
 * ids keep the low 88 bits (the last 11 bytes) of the digest.
 */
public final class Hashes {
    private static final ThreadLocal<SHA3Digest> DIGEST = ThreadLocal.withInitial(() -> new SHA3Digest(256));

    private Hashes() {
    }

    /** SHA3-256 of {@code tag} then each field, each as a 4-byte big-endian length and its bytes. */
    public static byte[] sha3(String tag, byte[]... fields) {
        // Bouncy Castle's digest directly, one per thread and reset by each doFinal: the fold
        // hashes every job's chain position, and a JCA lookup (or a fresh sponge) per digest
        // cost more than the hashing. The result is the same SHA3-256.
        SHA3Digest d = DIGEST.get();
        try {
            update(d, tag.getBytes(StandardCharsets.UTF_8));
            for (byte[] f : fields) {
                update(d, f);
            }
        } catch (RuntimeException e) {
            d.reset(); // a null field: the next digest on this thread starts clean
            throw e;
        }
        byte[] out = new byte[32];
        d.doFinal(out, 0);
        return out;
    }

    /** The low 88 bits of a digest. */
    public static byte[] low88(byte[] digest) {
        return Arrays.copyOfRange(digest, digest.length - Id88.BYTES, digest.length);
    }

    /** SHA3-256 of raw bytes (no framing). */
    public static byte[] sha3Raw(byte[] bytes) {
        SHA3Digest d = DIGEST.get();
        d.update(bytes, 0, bytes.length); // a null array throws before anything is absorbed
        byte[] out = new byte[32];
        d.doFinal(out, 0);
        return out;
    }

    /** A fresh SHA3-256 digest, for callers that feed it in parts. */
    public static MessageDigest sha3() {
        return newDigest();
    }

    private static void update(SHA3Digest d, byte[] field) {
        int n = field.length;
        d.update((byte) (n >>> 24));
        d.update((byte) (n >>> 16));
        d.update((byte) (n >>> 8));
        d.update((byte) n);
        d.update(field, 0, n);
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA3-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA3-256 is part of every Java 17 runtime", e);
        }
    }
}
