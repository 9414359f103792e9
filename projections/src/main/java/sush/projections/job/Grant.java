package sush.projections.job;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

import sush.projections.id.Hashes;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionRank;

/**
 * A session of the {@code signed} ordering, before signing (ordered-sessions.md section 1): the
 * signer's epoch (strictly increasing per signer), the signer key's id, who starts the session
 * (the operator's key id where operators authenticate, else the client's name) and the client's
 * nonce. The session id is a function of these fields, checked by every sled, never trusted.
 */
public record Grant(long epoch, KeyId signer, String starter, byte[] clientNonce) {
    static final String SESSION_TAG = "sush-session-2";
    static final String DIGEST_TAG = "sush-grant-v1";
    /** Bound on the starter's name (a key id's codephrase or a client name). */
    public static final int MAX_STARTER_CHARS = 128;
    /** Client nonces are 32 bytes, as for causal session starts. */
    public static final int NONCE_BYTES = 32;

    public Grant {
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(starter, "starter");
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch " + Long.toUnsignedString(epoch) + " is past 2^63 - 1");
        }
        if (starter.isEmpty() || starter.length() > MAX_STARTER_CHARS) {
            throw new IllegalArgumentException("starter of 1 to " + MAX_STARTER_CHARS + " characters");
        }
        if (clientNonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("client nonce must be " + NONCE_BYTES + " bytes");
        }
        clientNonce = clientNonce.clone();
    }

    @Override
    public byte[] clientNonce() {
        return clientNonce.clone();
    }

    /** {@code H("sush-session-2" || signer || epoch || client_nonce)}, truncated like every id. */
    public SessionId session() {
        return new SessionId(Hashes.low88(Hashes.sha3(SESSION_TAG, signer.toBytes(), epochBytes(), clientNonce)));
    }

    /** The session's place in the signer's order. */
    public SessionRank rank() {
        return new SessionRank(epoch, signer, session());
    }

    /** The to-be-signed digest: every field, labelled and length-prefixed, in a fixed order. */
    public byte[] digest() {
        return Hashes.sha3(DIGEST_TAG, "signer".getBytes(StandardCharsets.UTF_8), signer.toBytes(),
                "epoch".getBytes(StandardCharsets.UTF_8), epochBytes(),
                "starter".getBytes(StandardCharsets.UTF_8), starter.getBytes(StandardCharsets.UTF_8),
                "client_nonce".getBytes(StandardCharsets.UTF_8), clientNonce);
    }

    private byte[] epochBytes() {
        return ByteBuffer.allocate(Long.BYTES).putLong(epoch).array();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Grant && epoch == ((Grant) o).epoch && signer.equals(((Grant) o).signer)
                && starter.equals(((Grant) o).starter) && Arrays.equals(clientNonce, ((Grant) o).clientNonce);
    }

    @Override
    public int hashCode() {
        return Objects.hash(epoch, signer, starter, Arrays.hashCode(clientNonce));
    }

    @Override
    public String toString() {
        return "Grant[" + session().codephrase() + " epoch " + epoch + " by " + signer.codephrase() + " for " + starter
                + "]";
    }
}
