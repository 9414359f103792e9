package sush.ops.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import sush.gossip.Entropy;

/**
 * The login challenges of one sled (security.md section 5, issue 36): stateless nonces MACed with
 * a secret of this process for the client that asked, and the logins completed with them until
 * they expire, which makes each single use. Issuing is thread-safe; the completed logins are
 * guarded by the {@link Authority} holding them.
 */
final class Challenges {
    private final LongSupplier clock;
    private final Entropy entropy;
    /**
     * Logins completed with a challenge of this sled, until the challenge's expiry: what makes a
     * stateless challenge single use. Only a good operator signature adds one.
     */
    private final LinkedHashMap<String, Long> completed = new LinkedHashMap<>();
    /** The per-sled secret a challenge's MAC is made with (never leaves this process). */
    private final byte[] challengeSecret = new byte[32];

    /** Draws this sled's secret from {@code entropy}. */
    Challenges(LongSupplier clock, Entropy entropy) {
        this.clock = clock;
        this.entropy = entropy;
        entropy.nextBytes(challengeSecret);
    }

    /**
     * A fresh challenge nonce for a client at {@code client} (its address), valid 60 s, single
     * use. Stateless (security.md section 5, issue 36): 4 random bytes, the expiry in seconds
     * (4 bytes), and a MAC (8 bytes of HMAC-SHA256 with this sled's secret) over both and the
     * client's address. No number of challenges asked evicts another client's: none is stored.
     */
    byte[] challenge(String client) {
        long expires = Math.floorDiv(clock.getAsLong() + Authority.CHALLENGE_MILLIS + 999, 1000);
        byte[] nonce = new byte[Authority.NONCE_BYTES];
        byte[] random = new byte[4];
        entropy.nextBytes(random);
        ByteBuffer.wrap(nonce).put(random).putInt((int) expires).put(challengeMac(nonce, client));
        return nonce;
    }

    /** The 8 bytes of MAC a challenge {@code nonce} (its first 8 bytes read) carries for {@code client}. */
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(() -> {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(challengeSecret, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256", e);
        }
    });

    private byte[] challengeMac(byte[] nonce, String client) {
        try {
            Mac mac = macs.get();
            mac.reset();
            mac.update(nonce, 0, 8);
            mac.update(client.getBytes(StandardCharsets.UTF_8));
            return Arrays.copyOf(mac.doFinal(), 8);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("HmacSHA256", e);
        }
    }

    /**
     * When the challenge {@code nonce} expires (ms), if this sled gave it to {@code client}; or
     * -1 when it did not (forged, or another client's).
     */
    long challengeExpiry(byte[] nonce, String client) {
        if (nonce.length != Authority.NONCE_BYTES) {
            return -1;
        }
        byte[] mac = Arrays.copyOfRange(nonce, 8, 16);
        if (!MessageDigest.isEqual(mac, challengeMac(nonce, client))) {
            return -1;
        }
        return (ByteBuffer.wrap(nonce, 4, 4).getInt() & 0xFFFFFFFFL) * 1000;
    }

    /** Forgets the completed logins whose challenge expired by {@code now}: it is refused as expired anyway. */
    void forgetExpired(long now) {
        for (Iterator<Map.Entry<String, Long>> it = completed.entrySet().iterator(); it.hasNext();) {
            if (it.next().getValue() <= now) {
                it.remove();
            } else {
                break; // nearly expiry order: a later login's challenge expires later, within a second
            }
        }
    }

    /** Whether a login was completed with the challenge {@code handle} (its nonce in hex). */
    boolean completed(String handle) {
        return completed.containsKey(handle);
    }

    /** Records a login completed with the challenge {@code handle}, until the challenge's {@code expiry}. */
    void complete(String handle, long expiry) {
        completed.put(handle, expiry);
    }
}
