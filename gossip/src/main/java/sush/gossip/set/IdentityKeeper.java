package sush.gossip.set;

import java.util.Optional;

/**
 * Where a sled keeps its {@linkplain Bookmark bookmarks} across lives (D-053). A replica calls
 * {@link #keep} under its lock before anything that depends on the bookmark becomes visible:
 * before a sent message is held (so before any peer can have it), before half of its identity is
 * handed to a newcomer, and when it takes an identity. A keeper that cannot keep throws
 * {@link ReplicaException} ({@code IDENTITY_NOT_KEPT}), and the replica changes nothing.
 */
public interface IdentityKeeper {
    /** Keeps nothing: every life forks a fresh identity from a provider (tests, one-shot tools). */
    IdentityKeeper NONE = new IdentityKeeper() {
        @Override
        public void keep(Bookmark bookmark) {
        }

        @Override
        public Optional<Bookmark> find(NetworkId network) {
            return Optional.empty();
        }
    };

    /** Replaces the bookmark of {@code bookmark.network()}. */
    void keep(Bookmark bookmark);

    /** The bookmark an earlier life (or this one) kept in {@code network}, if any. */
    Optional<Bookmark> find(NetworkId network);
}
