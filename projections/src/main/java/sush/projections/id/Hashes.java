package sush.projections.id;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * SHA3-256 over labelled, length-prefixed fields, so that no two field lists share an input;
 * ids keep the low 88 bits (the last 11 bytes) of the digest.
 */
public final class Hashes {
    private Hashes() {
    }

    /** SHA3-256 of {@code tag} then each field, each as a 4-byte big-endian length and its bytes. */
    public static byte[] sha3(String tag, byte[]... fields) {
        MessageDigest d = newDigest();
        update(d, tag.getBytes(StandardCharsets.UTF_8));
        for (byte[] f : fields) {
            update(d, f);
        }
        return d.digest();
    }

    /** The low 88 bits of a digest. */
    public static byte[] low88(byte[] digest) {
        return Arrays.copyOfRange(digest, digest.length - Id88.BYTES, digest.length);
    }

    /** SHA3-256 of raw bytes (no framing). */
    public static byte[] sha3Raw(byte[] bytes) {
        return newDigest().digest(bytes);
    }

    /** A fresh SHA3-256 digest, for callers that feed it in parts. */
    public static MessageDigest sha3() {
        return newDigest();
    }

    private static void update(MessageDigest d, byte[] field) {
        int n = field.length;
        d.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        d.update(field);
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA3-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA3-256 is part of every Java 17 runtime", e);
        }
    }
}
