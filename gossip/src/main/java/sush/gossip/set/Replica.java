package sush.gossip.set;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import reactor.core.publisher.Flux;
import sush.gossip.clock.ClockException;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;

/**
 * One sled's copy of the causal message set of its universe: immutable messages keyed by
 * version, the identity it ticks with, and its frontier (the join of every version it holds).
 *
 * <p>Invariant: the replica holds every message of its universe whose version is at or below
 * its frontier, except those it {@linkplain #forget forgot} or that a replica it synced with
 * had forgotten (bounded-gossip.md section 3: forgetting is local, and no tombstone crosses the
 * wire; the sieve of {@link #missingFor} never sends a peer what is at or below its frontier,
 * so nothing forgotten comes back). Every change (send, sync commit, bootstrap adoption,
 * forgetting) keeps it. The delivery log lists the messages in the order they became held,
 * which is a causal order: a commit appends only messages above the old frontier, sorted by
 * {@link Version#CAUSAL_ORDER}. A message's place in the log (its delivery checkpoint) never
 * changes: forgetting leaves a gap that readers pass over.
 */
public final class Replica {
    /** Bound on the set: about 1 M messages. A full set refuses sends and syncs that add. */
    public static final int MAX_MESSAGES = 1 << 20;
    /** Bound on one payload. */
    public static final int MAX_PAYLOAD_BYTES = 64 * 1024;

    private NetworkId network;
    private Id identity;
    private Version frontier = Version.ZERO;
    /** Each held message's place in the log (its delivery checkpoint). */
    private final Map<Version, Long> byVersion = new HashMap<>();
    private final Log log = new Log();
    /**
     * The join of every version this replica forgot or learned was forgotten (a peer's, joined
     * at each commit): what it may claim to have seen without holding. Zero while nothing was.
     */
    private Version forgottenCeiling = Version.ZERO;
    /** How many messages this replica forgot (its own forgetting only). */
    private long forgotten;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** This replica's bound on messages held ({@link #MAX_MESSAGES} unless scaled down in a test). */
    private final int maxMessages;
    /** Where this replica's identity is kept for the sled's next life (D-053). */
    private final IdentityKeeper keeper;
    /** At or above every version this replica's identity ticked in its universe (zero before any). */
    private Version lastSent = Version.ZERO;
    /** Whether this replica's identity is one an earlier life of the sled held here (D-053). */
    private boolean resumed;

    private Replica(NetworkId network, Id identity, int maxMessages, IdentityKeeper keeper) {
        this.network = network;
        this.identity = identity;
        this.maxMessages = maxMessages;
        this.keeper = keeper;
    }

    /** The first replica of a new universe: owns the whole identity, holds nothing. */
    public static Replica seed(NetworkId network) {
        return seed(network, IdentityKeeper.NONE);
    }

    /** {@link #seed(NetworkId)} whose identity {@code keeper} keeps for the sled's next life. */
    public static Replica seed(NetworkId network, IdentityKeeper keeper) {
        return seed(network, MAX_MESSAGES, keeper);
    }

    /** {@link #seed(NetworkId)} with a bound scaled down (tests reach it in a few messages). */
    static Replica seed(NetworkId network, int maxMessages) {
        return seed(network, maxMessages, IdentityKeeper.NONE);
    }

    private static Replica seed(NetworkId network, int maxMessages, IdentityKeeper keeper) {
        if (network.isBootstrapping()) {
            throw new IllegalArgumentException("the all-zero network id is reserved for bootstrapping");
        }
        Replica r = new Replica(network, Id.ONE, maxMessages, keeper);
        keeper.keep(new Bookmark(network, Id.ONE, Version.ZERO));
        return r;
    }

    /** A replica that will join a universe by bootstrapping from a provider. */
    public static Replica newcomer() {
        return newcomer(IdentityKeeper.NONE);
    }

    /**
     * A newcomer whose keeper may hold a bookmark of the universe it joins: it then claims its
     * earlier identity back, and keeps whichever identity it takes.
     */
    public static Replica newcomer(IdentityKeeper keeper) {
        return new Replica(NetworkId.BOOTSTRAPPING, Id.ZERO, MAX_MESSAGES, keeper);
    }

    /** This replica's keeper (a newcomer asks it for the bookmark of the universe it joins). */
    public IdentityKeeper keeper() {
        return keeper;
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
            // Kept before the message is held, so before any peer can have it.
            keeper.keep(new Bookmark(network, identity, v));
            lastSent = v;
            hold(new Message(v, payload));
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

    /** How many messages the replica holds now (forgotten ones are not counted). */
    public synchronized int size() {
        return byVersion.size();
    }

    /** How many messages this replica forgot since it was made (see {@link #forget}). */
    public synchronized long forgottenCount() {
        return forgotten;
    }

    /** The join of every version known to be forgotten: zero while nothing was (see {@link #forget}). */
    public synchronized Version forgottenCeiling() {
        return forgottenCeiling;
    }

    /**
     * Forgets the held messages among {@code versions} (bounded-gossip.md section 3). Local: no
     * tombstone is sent and the frontier does not move, so a peer that syncs with this replica
     * is never sent them again (they are at or below its frontier once it joins ours), and a
     * peer that still holds them never sends them back here. The caller forgets only what every
     * replica of the universe already holds or will never need: a replica that joins this
     * frontier without holding a forgotten message never receives it. Versions not held are
     * passed over.
     *
     * @return how many messages were forgotten
     */
    public int forget(Collection<Version> versions) {
        synchronized (this) {
            int n = 0;
            for (Version v : versions) {
                Long seq = byVersion.remove(v);
                if (seq != null) {
                    log.clear(seq);
                    forgottenCeiling = forgottenCeiling.join(v);
                    n++;
                }
            }
            forgotten += n;
            return n;
        }
    }

    public synchronized boolean contains(Version version) {
        return byVersion.containsKey(version);
    }

    /** The message held at {@code version}, if it is held. */
    public synchronized Optional<Message> get(Version version) {
        Long seq = byVersion.get(version);
        return seq == null ? Optional.empty() : Optional.of(log.message(log.indexAfter(seq - 1)));
    }

    /** A consistent view for a sync session: what the replica held at one instant. */
    public synchronized View view() {
        return new View(network, frontier, log.lastSeq());
    }

    /** Network, frontier, and the checkpoint of the newest message held at that instant. */
    public record View(NetworkId network, Version frontier, long logSize) {
    }

    /** What a peer lacks, and the {@link #forgottenCeiling} read with it. */
    public record Supply(List<Message> messages, Version forgotten) {
    }

    /**
     * The messages of {@code view} that a peer with {@code otherFrontier} lacks: exactly those
     * whose version is not at or below it (the peer holds every message at or below its
     * frontier, and nothing else). In causal order.
     */
    public synchronized List<Message> missingFor(View view, Version otherFrontier) {
        return supplyFor(view, otherFrontier).messages();
    }

    /**
     * {@link #missingFor} with the forgotten ceiling read in the same instant: together with
     * what the peer holds they make up this replica's frontier at {@code view} (what was
     * forgotten since the view is in the ceiling, no longer in the list).
     */
    public synchronized Supply supplyFor(View view, Version otherFrontier) {
        requireUniverse(view.network());
        long from = Math.min(coveredBy(otherFrontier), view.logSize());
        List<Message> missing = new ArrayList<>();
        long covered = -1;
        for (int i = log.indexAfter(from); i < log.count() && log.seq(i) <= view.logSize(); i++) {
            Message m = log.message(i);
            if (m != null && !m.version().leq(otherFrontier)) {
                if (covered < 0) {
                    covered = log.seq(i) - 1;
                }
                missing.add(m);
            }
        }
        remember(otherFrontier, covered < 0 ? view.logSize() : covered);
        return new Supply(missing, forgottenCeiling);
    }

    /**
     * Bound on remembered covered prefixes: more than a sled has peers syncing with it at once
     * (each peer's frontier only grows, so its newest one stands for the older).
     */
    static final int COVERED_MEMORY = 16;

    /**
     * Prefixes of the log known to be at or below a frontier, newest last: every message held at a
     * checkpoint up to {@code prefix} is at or below {@code frontier}. The log only grows at its
     * end and forgetting only takes from it, so a prefix stays covered by that
     * frontier and by every frontier above it; {@link #missingFor} starts its scan there instead
     * of at the beginning of a log that holds every message of the universe (D-037).
     */
    private final ArrayDeque<Covered> covered = new ArrayDeque<>();

    private record Covered(Version frontier, long prefix) {
    }

    /** The longest remembered prefix of the log at or below {@code frontier} (0 when none is). */
    private long coveredBy(Version frontier) {
        long best = 0;
        for (Covered c : covered) {
            if (c.prefix() > best && c.frontier().leq(frontier)) {
                best = c.prefix();
            }
        }
        return best;
    }

    private void remember(Version frontier, long prefix) {
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
     * cover it. Messages already held (from a concurrent session) are skipped, and so are
     * messages at or below the frontier that are not held: forgotten here, they never come back.
     *
     * @return how many messages were new
     */
    public int commit(NetworkId expected, Version remoteFrontier, List<Message> incoming) {
        return commit(expected, remoteFrontier, Version.ZERO, incoming);
    }

    /** {@link #commit} that also learns the peer's {@link #forgottenCeiling}. */
    public int commit(NetworkId expected, Version remoteFrontier, Version remoteForgotten, List<Message> incoming) {
        int added;
        synchronized (this) {
            requireUniverse(expected);
            boolean anyForgotten = !forgottenCeiling.isZero();
            List<Message> fresh = new ArrayList<>(incoming.size());
            for (Message m : incoming) {
                if (!byVersion.containsKey(m.version()) && !(anyForgotten && m.version().leq(frontier))) {
                    fresh.add(m);
                }
            }
            requireRoom(fresh.size());
            fresh.sort((a, b) -> Version.CAUSAL_ORDER.compare(a.version(), b.version()));
            for (Message m : fresh) {
                hold(m);
            }
            frontier = frontier.join(remoteFrontier);
            forgottenCeiling = forgottenCeiling.join(remoteForgotten);
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
    public Grant grant() {
        return grant(Optional.empty());
    }

    /**
     * {@link #grant()} for a newcomer that claims its earlier identity back with {@code claimed}:
     * when it names this universe, this replica's frontier covers its last send (so every
     * message that identity sent here is held or was forgotten) and it shares nothing with this
     * replica's identity, the grant carries no share ({@link Id#ZERO}) and this replica keeps its
     * whole identity; otherwise the identity is forked as for any newcomer.
     */
    public synchronized Grant grant(Optional<Bookmark> claimed) {
        if (identity.isZero()) {
            throw new ReplicaException(ReplicaException.Kind.NO_IDENTITY, "a replica without identity cannot provide");
        }
        if (claimed.isPresent() && resumable(claimed.get())) {
            return new Grant(network, Id.ZERO, frontier, log.held(), forgottenCeiling);
        }
        Id[] halves = identity.fork();
        // Kept before the other half leaves: a crash after this leaks it, never doubles it.
        keeper.keep(new Bookmark(network, halves[0], lastSent));
        identity = halves[0];
        return new Grant(network, halves[1], frontier, log.held(), forgottenCeiling);
    }

    private boolean resumable(Bookmark b) {
        if (!b.network().equals(network) || !b.lastSent().leq(frontier)) {
            return false;
        }
        try {
            identity.join(b.identity());
            return true;
        } catch (ClockException e) {
            return false;
        }
    }

    /**
     * What a provider hands a newcomer: the set it holds, and the ceiling of what it forgot
     * (the frontier covers both).
     */
    public record Grant(NetworkId network, Id identity, Version frontier, List<Message> messages, Version forgotten) {
        /** A grant from a provider that forgot nothing. */
        public Grant(NetworkId network, Id identity, Version frontier, List<Message> messages) {
            this(network, identity, frontier, messages, Version.ZERO);
        }
    }

    /** The newcomer's half of a bootstrap: take the universe, the identity share and the set. */
    public void adopt(Grant grant) {
        adopt(grant, Version.ZERO, false);
    }

    /**
     * {@link #adopt(Grant)} of the identity an earlier life of this sled held in the grant's
     * universe ({@code grant.identity()} is {@code bookmark}'s, given back: the provider's
     * frontier covers the bookmark's last send).
     */
    public void adoptResumed(Grant grant, Bookmark bookmark) {
        if (!grant.identity().equals(bookmark.identity()) || !grant.network().equals(bookmark.network())) {
            throw new IllegalArgumentException("a resumed grant carries its bookmark's universe and identity");
        }
        adopt(grant, bookmark.lastSent(), true);
    }

    /** Whether this replica took its identity back from a bookmark instead of a provider's fork (D-053). */
    public synchronized boolean resumed() {
        return resumed;
    }

    private void adopt(Grant grant, Version lastSent, boolean fromBookmark) {
        synchronized (this) {
            if (!network.isBootstrapping() || !frontier.isZero() || log.lastSeq() != 0) {
                throw new ReplicaException(ReplicaException.Kind.NOT_A_NEWCOMER,
                        "a replica with a universe or history cannot adopt a bootstrap");
            }
            if (grant.identity().isZero() || !lastSent.leq(grant.frontier())) {
                throw new ReplicaException(ReplicaException.Kind.NO_IDENTITY,
                        "a grant without an identity, or one the provider's frontier does not cover");
            }
            requireRoom(grant.messages().size());
            keeper.keep(new Bookmark(grant.network(), grant.identity(), lastSent));
            this.lastSent = lastSent;
            resumed = fromBookmark;
            List<Message> sorted = new ArrayList<>(grant.messages());
            sorted.sort((a, b) -> Version.CAUSAL_ORDER.compare(a.version(), b.version()));
            for (Message m : sorted) {
                if (!byVersion.containsKey(m.version())) {
                    hold(m);
                }
            }
            network = grant.network();
            identity = grant.identity();
            frontier = grant.frontier();
            forgottenCeiling = grant.forgotten();
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
        List<Delivery> out = new ArrayList<>(Math.min(max, 256));
        for (int i = log.indexAfter(checkpoint); i < log.count() && out.size() < max; i++) {
            Message m = log.message(i);
            if (m != null) {
                out.add(new Delivery(log.seq(i), m.version(), m.payload()));
            }
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

    private void hold(Message m) {
        byVersion.put(m.version(), log.append(m));
    }

    private void requireRoom(int extra) {
        if (byVersion.size() + (long) extra > maxMessages) {
            throw new ReplicaException(ReplicaException.Kind.SET_FULL,
                    byVersion.size() + " + " + extra + " messages over " + maxMessages);
        }
    }

    private void requireUniverse(NetworkId expected) {
        if (!network.equals(expected)) {
            throw new ReplicaException(ReplicaException.Kind.UNIVERSE_CHANGED,
                    "replica is in " + network + ", not " + expected);
        }
    }
}
