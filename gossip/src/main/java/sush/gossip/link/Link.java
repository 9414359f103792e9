package sush.gossip.link;

import java.util.Optional;

import reactor.core.publisher.Flux;

/**
 * A reliable, ordered byte stream to one peer. Bytes sent arrive in order or not at all; a
 * broken or poisoned link ends both directions with an error and is never reused.
 */
public interface Link {
    /** Queues bytes for the peer. Ignored once the link is closed (the receive side reports why). */
    void send(byte[] bytes);

    /**
     * The peer's bytes as they arrive, in chunks of any size. One subscriber. Completes when the
     * peer closes cleanly; errors with a {@link LinkBrokenException} when the link breaks.
     */
    Flux<byte[]> receive();

    /** Closes both directions for good after an error; the peer sees the link break. Idempotent. */
    void poison(String reason);

    boolean isOpen();

    /**
     * The sled the peer proved to be (the name its TLS certificate carries), or empty where the
     * transport proves nothing (plain TCP, the in-memory links). Known before any frame arrives.
     */
    default Optional<String> peerIdentity() {
        return Optional.empty();
    }
}
