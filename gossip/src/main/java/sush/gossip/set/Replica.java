package sush.gossip.set;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import reactor.core.publisher.Flux;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;

/**
 * One sled's copy of the causal message set of its universe: immutable messages keyed by
 * version, the identity it ticks with, and its frontier (the join of every version it holds).
 *
 * <p>Invariant: the replica holds every message of its universe whose version is at or below
 * its frontier; every change (send, sync commit, bootstrap adoption) keeps it. The delivery
 * log lists the messages in the order they became held, which is a causal order: a commit
 * appends only messages above the old frontier, sorted by {@link Version#CAUSAL_ORDER}.
 */
public final class Replica {
    /** Bound on the set: about 1 M messages. A full set refuses sends and syncs that add. */
    public static final int MAX_MESSAGES = 1 << 20;
    /** Bound on one payload. */
    public static final int MAX_PAYLOAD_BYTES = 64 * 1024;

    private NetworkId network;
    private Id identity;
    private Version frontier = Version.ZERO;
    private final Map<Version, Message> byVersion = new HashMap<>();
    private final List<Message> log = new ArrayList<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    private Replica(NetworkId network, Id identity) {
        this.network = network;
        this.identity = identity;
    }

    /** The first replica of a new universe: owns the whole identity, holds nothing. */
    public static Replica seed(NetworkId network) {
        if (network.isBootstrapping()) {
            throw new IllegalArgumentException("the all-zero network id is reserved for bootstrapping");
        }
        return new Replica(network, Id.ONE);
    }

    /** A replica that will join a universe by bootstrapping from a provider. */
    public static Replica newcomer() {
        return new Replica(NetworkId.BOOTSTRAPPING, Id.ZERO);
    }

    /**
     * Adds a message whose version ticks this replica's identity over its whole frontier, so
     * every message held before the send is in its causal past.
     */
    public Version send(byte[] payload) {
        return sendOnBase(payload).version();
    }

    /** A message this replica sent and the frontier it was built on (for a push). */
    public record Sent(Version base, Version version) {
    }

    /** {@link #send} that also returns the frontier just before the send, read atomically. */
    public Sent sendOnBase(byte[] payload) {
        Version v;
        Version base;
        synchronized (this) {
            base = frontier;
            if (payload.length > MAX_PAYLOAD_BYTES) {
                throw new ReplicaException(ReplicaException.Kind.PAYLOAD_TOO_LARGE,
                        payload.length + " bytes over " + MAX_PAYLOAD_BYTES);
            }
            if (identity.isZero()) {
                throw new ReplicaException(ReplicaException.Kind.NO_IDENTITY, "bootstrapping; cannot send yet");
            }
            requireRoom(1);
            v = frontier.tick(identity);
            Message m = new Message(v, payload);
            byVersion.put(v, m);
            log.add(m);
            frontier = v;
        }
        notifyListeners();
        return new Sent(base, v);
    }

    public synchronized NetworkId network() {
        return network;
    }

    public synchronized Id identity() {
        return identity;
    }

    public synchronized Version frontier() {
        return frontier;
    }

    public synchronized int size() {
        return log.size();
    }

    public synchronized boolean contains(Version version) {
        return byVersion.containsKey(version);
    }

    /** A consistent view for a sync session: what the replica held at one instant. */
    public synchronized View view() {
        return new View(network, frontier, log.size());
    }

    /** Network, frontier, and how long the log was at that instant. */
    public record View(NetworkId network, Version frontier, int logSize) {
    }

    /**
     * The messages of {@code view} that a peer with {@code otherFrontier} lacks: exactly those
     * whose version is not at or below it (the peer holds every message at or below its
     * frontier, and nothing else). In causal order.
     */
    public synchronized List<Message> missingFor(View view, Version otherFrontier) {
        requireUniverse(view.network());
        int from = Math.min(coveredBy(otherFrontier), view.logSize());
        List<Message> missing = new ArrayList<>();
        int covered = -1;
        for (int i = from; i < view.logSize(); i++) {
            Message m = log.get(i);
            if (!m.version().leq(otherFrontier)) {
                if (covered < 0) {
                    covered = i;
                }
                missing.add(m);
            }
        }
        remember(otherFrontier, covered < 0 ? view.logSize() : covered);
        return missing;
    }

    /**
     * Bound on remembered covered prefixes: more than a sled has peers syncing with it at once
     * (each peer's frontier only grows, so its newest one stands for the older).
     */
    static final int COVERED_MEMORY = 16;

    /**
     * Prefixes of the log known to be at or below a frontier, newest last: {@code log[0, prefix)}
     * is at or below {@code frontier}. The log only grows, so a prefix stays covered by that
     * frontier and by every frontier above it; {@link #missingFor} starts its scan there instead
     * of at the beginning of a log that holds every message of the universe (D-037).
     */
    private final ArrayDeque<Covered> covered = new ArrayDeque<>();

    private record Covered(Version frontier, int prefix) {
    }

    /** The longest remembered prefix of the log at or below {@code frontier} (0 when none is). */
    private int coveredBy(Version frontier) {
        int best = 0;
        for (Covered c : covered) {
            if (c.prefix() > best && c.frontier().leq(frontier)) {
                best = c.prefix();
            }
        }
        return best;
    }

    private void remember(Version frontier, int prefix) {
        if (prefix == 0) {
            return;
        }
        if (covered.size() >= COVERED_MEMORY) {
            covered.removeFirst();
        }
        covered.addLast(new Covered(frontier, prefix));
    }

    /**
     * Atomically adds what a peer supplied and joins its frontier. The caller has checked that
     * every incoming version is at or below {@code remoteFrontier} and that together they
     * cover it. Messages already held (from a concurrent session) are skipped.
     *
     * @return how many messages were new
     */
    public int commit(NetworkId expected, Version remoteFrontier, List<Message> incoming) {
        int added;
        synchronized (this) {
            requireUniverse(expected);
            List<Message> fresh = new ArrayList<>(incoming.size());
            for (Message m : incoming) {
                if (!byVersion.containsKey(m.version())) {
                    fresh.add(m);
                }
            }
            requireRoom(fresh.size());
            fresh.sort((a, b) -> Version.CAUSAL_ORDER.compare(a.version(), b.version()));
            for (Message m : fresh) {
                byVersion.put(m.version(), m);
                log.add(m);
            }
            frontier = frontier.join(remoteFrontier);
            added = fresh.size();
        }
        if (added > 0) {
            notifyListeners();
        }
        return added;
    }

    /**
     * The provider's half of a bootstrap, in one critical section so that no send slips
     * between the snapshot and the fork: keep one half of the identity, hand out the other with
     * the whole set.
     */
    public synchronized Grant grant() {
        if (identity.isZero()) {
            throw new ReplicaException(ReplicaException.Kind.NO_IDENTITY, "a replica without identity cannot provide");
        }
        Id[] halves = identity.fork();
        identity = halves[0];
        return new Grant(network, halves[1], frontier, List.copyOf(log));
    }

    /** What a provider hands a newcomer. */
    public record Grant(NetworkId network, Id identity, Version frontier, List<Message> messages) {
    }

    /** The newcomer's half of a bootstrap: take the universe, the identity share and the set. */
    public void adopt(Grant grant) {
        synchronized (this) {
            if (!network.isBootstrapping() || !frontier.isZero() || !log.isEmpty()) {
                throw new ReplicaException(ReplicaException.Kind.NOT_A_NEWCOMER,
                        "a replica with a universe or history cannot adopt a bootstrap");
            }
            requireRoom(grant.messages().size());
            List<Message> sorted = new ArrayList<>(grant.messages());
            sorted.sort((a, b) -> Version.CAUSAL_ORDER.compare(a.version(), b.version()));
            for (Message m : sorted) {
                byVersion.put(m.version(), m);
                log.add(m);
            }
            network = grant.network();
            identity = grant.identity();
            frontier = grant.frontier();
        }
        notifyListeners();
    }

    /**
     * Messages in delivery order from {@code checkpoint} (a log position), at most {@code max}.
     * Causal: a message is never listed before one in its causal past.
     */
    public synchronized List<Delivery> readFrom(long checkpoint, int max) {
        if (checkpoint < 0) {
            throw new IllegalArgumentException("negative checkpoint " + checkpoint);
        }
        int from = (int) Math.min(checkpoint, log.size());
        int to = (int) Math.min((long) from + max, log.size());
        List<Delivery> out = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            Message m = log.get(i);
            out.add(new Delivery(i + 1L, m.version(), m.payload()));
        }
        return out;
    }

    /**
     * Every message from {@code checkpoint} on, then each new one as it is held, in causal
     * order. Resuming from the checkpoint of the last delivery handled may replay, never skip.
     *
     * <p>New messages are emitted on the thread that added them, which may be a link's I/O
     * thread holding that link's lock: a subscriber that does more than record must move off it
     * ({@code publishOn} its own scheduler) and must never call back into gossip from there.
     */
    public Flux<Delivery> deliveries(long checkpoint) {
        return Flux.create(sink -> {
            DeliveryDrain drain = new DeliveryDrain(this, sink, checkpoint);
            listeners.add(drain);
            sink.onRequest(n -> drain.run());
            sink.onDispose(() -> listeners.remove(drain));
        });
    }

    private void notifyListeners() {
        for (Runnable listener : listeners) {
            listener.run();
        }
    }

    private void requireRoom(int extra) {
        if (log.size() + (long) extra > MAX_MESSAGES) {
            throw new ReplicaException(ReplicaException.Kind.SET_FULL,
                    log.size() + " + " + extra + " messages over " + MAX_MESSAGES);
        }
    }

    private void requireUniverse(NetworkId expected) {
        if (!network.equals(expected)) {
            throw new ReplicaException(ReplicaException.Kind.UNIVERSE_CHANGED,
                    "replica is in " + network + ", not " + expected);
        }
    }
}
