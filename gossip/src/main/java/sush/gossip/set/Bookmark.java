package sush.gossip.set;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;
import sush.gossip.wire.WireWriter;

/**
 * What a sled keeps of its identity in one universe so that a later life in the same universe
 * takes it back instead of forking a provider's (bounded-gossip.md section 4, D-053).
 *
 * <p>{@code lastSent} is at or above every version this identity ticked in {@code network}: a
 * provider whose frontier covers it has seen every message the identity ever sent there (each
 * send ticks over the whole frontier, so the last one is above every earlier one), so a new life
 * that ticks above that frontier never makes a version twice, and never claims to have seen a
 * message that still travels.
 */
public record Bookmark(NetworkId network, Id identity, Version lastSent) {
    /** Bound on an identity's or a version's encoding in a bookmark. */
    public static final int MAX_PART_BYTES = 1 << 20;

    public Bookmark {
        if (network.isBootstrapping() || identity.isZero()) {
            throw new IllegalArgumentException("a bookmark names a universe and an identity");
        }
    }

    /** {@code network 16 | identity bytes | lastSent bytes}. */
    public void writeTo(WireWriter w) {
        w.writeBytes(network.toBytes());
        w.writeLengthPrefixed(identity.toBytes()).writeLengthPrefixed(lastSent.toBytes());
    }

    public static Bookmark readFrom(WireReader r) throws MalformedException {
        NetworkId network = NetworkId.of(r.readBytes(NetworkId.SIZE_BYTES));
        Id identity = Id.fromBytes(r.readLengthPrefixed(MAX_PART_BYTES, "identity"));
        Version lastSent = Version.fromBytes(r.readLengthPrefixed(MAX_PART_BYTES, "last sent"));
        if (network.isBootstrapping() || identity.isZero()) {
            throw new MalformedException(MalformedException.Reason.OUT_OF_RANGE, "a bookmark without universe or identity");
        }
        return new Bookmark(network, identity, lastSent);
    }
}
