package sush.gossip.set;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;
import sush.gossip.wire.WireWriter;

/**
 * A sled's bookmarks in memory, one per universe, the {@value #MAX_UNIVERSES} most recently kept
 * (a sled's current universe, the one it seeded at its last boot before it joined the rack's,
 * and a few it left): what a keeper that outlives a life holds, and what a file keeper writes.
 * Thread-safe.
 */
public final class Bookmarks implements IdentityKeeper {
    /** How many universes' bookmarks are kept; the least recently kept goes first. */
    public static final int MAX_UNIVERSES = 4;
    private static final int FORMAT = 1;

    private final LinkedHashMap<NetworkId, Bookmark> byNetwork = new LinkedHashMap<>();

    @Override
    public synchronized void keep(Bookmark bookmark) {
        byNetwork.remove(bookmark.network());
        byNetwork.put(bookmark.network(), bookmark);
        while (byNetwork.size() > MAX_UNIVERSES) {
            byNetwork.remove(byNetwork.keySet().iterator().next());
        }
    }

    @Override
    public synchronized Optional<Bookmark> find(NetworkId network) {
        return Optional.ofNullable(byNetwork.get(network));
    }

    /** Every bookmark, least recently kept first. */
    public synchronized List<Bookmark> all() {
        return new ArrayList<>(byNetwork.values());
    }

    /**
     * A deliberately wrong keeper over these bookmarks, whose bookmarks claim nothing was sent
     * (so a provider always gives the identity back): the checkers are shown catching it (D-053).
     */
    public IdentityKeeper stale() {
        Bookmarks kept = this;
        return new IdentityKeeper() {
            @Override
            public void keep(Bookmark b) {
                kept.keep(b);
            }

            @Override
            public Optional<Bookmark> find(NetworkId network) {
                return kept.find(network).map(b -> new Bookmark(b.network(), b.identity(), Version.ZERO));
            }
        };
    }

    /** Forgets every bookmark (the sled lost its state: its next life forks). */
    public synchronized void clear() {
        byNetwork.clear();
    }

    /** {@code format u8 | count varint | count x bookmark}, least recently kept first. */
    public synchronized byte[] toBytes() {
        WireWriter w = new WireWriter(256);
        w.writeByte(FORMAT).writeVarint(byNetwork.size());
        for (Bookmark b : byNetwork.values()) {
            b.writeTo(w);
        }
        return w.toByteArray();
    }

    /** The bookmarks {@link #toBytes} wrote; anything else is malformed. */
    public static Bookmarks fromBytes(byte[] bytes) throws MalformedException {
        WireReader r = new WireReader(bytes);
        int format = r.readByte();
        if (format != FORMAT) {
            throw new MalformedException(MalformedException.Reason.INVALID, "bookmark format " + format);
        }
        int count = r.readVarintAtMost(MAX_UNIVERSES, "bookmark count");
        Bookmarks out = new Bookmarks();
        for (int i = 0; i < count; i++) {
            Bookmark b = Bookmark.readFrom(r);
            if (out.byNetwork.containsKey(b.network())) {
                throw new MalformedException(MalformedException.Reason.INVALID, "two bookmarks of " + b.network());
            }
            out.byNetwork.put(b.network(), b);
        }
        r.expectEnd("bookmarks");
        return out;
    }

    @Override
    public synchronized String toString() {
        return "Bookmarks" + byNetwork.values();
    }
}
