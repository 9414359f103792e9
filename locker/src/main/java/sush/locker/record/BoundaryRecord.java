package sush.locker.record;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;

/**
 * The boundary record (at-most-once.md section 4): the one durable thing a sled writes, on both
 * M.2 slots, before each launch. Metadata only: no command, no output, no gossip payload, since
 * the M.2 drives are unencrypted. {@code recent} is ordered least recently left first. A
 * genesis record (provisioning) names {@link NetworkId#BOOTSTRAPPING} as its network: it was
 * committed in no universe.
 */
public record BoundaryRecord(String baseboard, NetworkId network, Version executed, Optional<Committed> committed,
        List<Left> recent, Bloom burned, boolean amnesiac) {
    /** Bound on universes kept exactly; past it the least recently left moves into {@code burned}. */
    public static final int MAX_RECENT = 16;
    /** Bound on a baseboard id. */
    public static final int MAX_BASEBOARD_CHARS = 128;

    public BoundaryRecord {
        Objects.requireNonNull(baseboard, "baseboard");
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(executed, "executed");
        Objects.requireNonNull(committed, "committed");
        Objects.requireNonNull(burned, "burned");
        recent = List.copyOf(recent);
        if (baseboard.isEmpty() || baseboard.length() > MAX_BASEBOARD_CHARS) {
            throw new IllegalArgumentException("baseboard must have 1.." + MAX_BASEBOARD_CHARS + " characters");
        }
        if (recent.size() > MAX_RECENT) {
            throw new IllegalArgumentException("recent holds " + recent.size() + " universes, over " + MAX_RECENT);
        }
        Set<NetworkId> keys = new HashSet<>();
        for (Left l : recent) {
            // Section 4, I1: network is never a key of recent; and recent is a map.
            if (l.network().equals(network) || !keys.add(l.network())) {
                throw new IllegalArgumentException("recent repeats " + l.network() + " or names the current network");
            }
            if (l.network().isBootstrapping()) {
                throw new IllegalArgumentException("recent names no universe");
            }
        }
        if (network.isBootstrapping() && (committed.isPresent() || !executed.isZero())) {
            throw new IllegalArgumentException("a record outside every universe has executed nothing");
        }
    }

    /** The genesis record of provisioning: this sled, nothing committed, a trustworthy history. */
    public static BoundaryRecord genesis(String baseboard) {
        return new BoundaryRecord(baseboard, NetworkId.BOOTSTRAPPING, Version.ZERO, Optional.empty(), List.of(),
                Bloom.EMPTY, false);
    }

    /** What this record holds for a universe it left, if it holds it exactly. */
    public Optional<Left> left(NetworkId n) {
        return recent.stream().filter(l -> l.network().equals(n)).findFirst();
    }

    /** Whether the record knows {@code n} as its network, a recent universe, or (maybe) a burned one. */
    public boolean knows(NetworkId n) {
        return network.equals(n) || left(n).isPresent() || burned.mightContain(n);
    }

    /** Every universe this record names exactly (its network and recent keys). */
    public List<NetworkId> universes() {
        List<NetworkId> out = new ArrayList<>();
        if (!network.isBootstrapping()) {
            out.add(network);
        }
        recent.forEach(l -> out.add(l.network()));
        return out;
    }

    /**
     * Invariant I1 across one write: every universe {@code before} names (where this sled may
     * have committed) is still the network, a recent key or in the Bloom filter of {@code after}.
     */
    public static void checkI1(Optional<BoundaryRecord> before, BoundaryRecord after) {
        if (before.isEmpty()) {
            return;
        }
        if (!before.get().baseboard().equals(after.baseboard())) {
            throw new IllegalStateException("a record changed its baseboard");
        }
        for (NetworkId n : before.get().universes()) {
            if (!after.knows(n)) {
                throw new IllegalStateException("I1 broken: universe " + n + " forgotten by the new record");
            }
        }
        if (!after.burned().covers(before.get().burned())) {
            throw new IllegalStateException("the Bloom filter of burned universes lost a bit");
        }
        if (before.get().amnesiac() && !after.amnesiac()) {
            throw new IllegalStateException("amnesiac is never cleared");
        }
    }
}
