package sush.projections.id;

import java.nio.charset.StandardCharsets;

/**
 * Session ids are computed, never chosen: a domain tag, the accepting sled's baseboard, a nonce
 * that sled draws fresh at every acceptance, and the client's nonce. So one id exists in one
 * universe, once; the at-most-once argument depends on it (at-most-once.md section 2). Every
 * sled recomputes a gossiped start's id from its fields.
 */
public final class SessionIds {
    static final String DOMAIN = "sush-session-v1";
    /** Nonces are 32 bytes: collisions across every acceptance ever are out of reach. */
    public static final int NONCE_BYTES = 32;

    private SessionIds() {
    }

    public static SessionId compute(String acceptingBaseboard, byte[] sledNonce, byte[] clientNonce) {
        if (sledNonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("sled nonce must be " + NONCE_BYTES + " bytes");
        }
        return new SessionId(Hashes.low88(Hashes.sha3(DOMAIN, acceptingBaseboard.getBytes(StandardCharsets.UTF_8),
                sledNonce, clientNonce)));
    }
}
