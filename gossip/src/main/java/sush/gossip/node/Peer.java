package sush.gossip.node;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;

import reactor.core.Disposable;
import sush.gossip.sync.LinkMux;

/**
 * What this sled knows of one peer: its name, address and name hash (how pushes record the sleds
 * they reached), its link while one is up, and the state of dialling it. Guarded by the node's
 * lock.
 */
final class Peer {
    final String name;
    final String address;
    final int hash;
    LinkMux mux;
    boolean dialing;
    boolean dialedByUs;
    Duration backoff;
    Disposable redial;

    Peer(String name, String address, Duration backoff) {
        this.name = name;
        this.address = address;
        this.hash = hash(name.getBytes(StandardCharsets.UTF_8));
        this.backoff = backoff;
    }

    /** Drops the peer's link (adding it to {@code toClose}: closed outside the lock) and any pending redial. */
    void forget(List<LinkMux> toClose) {
        if (mux != null) {
            toClose.add(mux);
            mux = null;
        }
        if (redial != null) {
            redial.dispose();
        }
    }

    /** A sled name's hash as pushes carry it: the first four bytes of its SHA-256, big-endian. */
    static int hash(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            return ((d[0] & 0xFF) << 24) | ((d[1] & 0xFF) << 16) | ((d[2] & 0xFF) << 8) | (d[3] & 0xFF);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
