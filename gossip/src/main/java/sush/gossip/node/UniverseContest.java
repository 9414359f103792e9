package sush.gossip.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import sush.gossip.Entropy;
import sush.gossip.set.IdentityKeeper;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.sync.LinkMux;
import sush.gossip.sync.NetworkMismatchException;
import sush.gossip.sync.SyncException;
import sush.gossip.sync.SyncSession;

/**
 * The sled's universe and the leaderless contest between universes (D-009): the current
 * replica, the sessions it runs (gossip, or a bootstrap while it has no universe), the loser
 * dropping its replica to join the winner (patiently, then from anyone), the one bootstrap claim
 * at a time, and the entries each start or migration emits. State is guarded by the node's lock
 * ({@code lock}); a mux is never called while holding it.
 */
final class UniverseContest {
    private final Object lock;
    private final GossipConfig config;
    private final Scheduler scheduler;
    private final Entropy entropy;
    private final byte[] name;
    private final PeerLinks links;
    private final NodeCounters counters;
    private final Sinks.Many<Entry> entries = Sinks.many().replay().latest();
    private Replica replica;
    private boolean bootstrapping;
    private SyncSession.UniverseFloor floor;
    private Disposable floorExpiry;
    /** The link whose session holds this sled's one bootstrap claim, if any. */
    private LinkMux claimant;
    private long entrySequence;
    /** Where each universe's identity is kept for this sled's next life (D-053). */
    private IdentityKeeper keeper = IdentityKeeper.NONE;

    UniverseContest(Object lock, GossipConfig config, Scheduler scheduler, Entropy entropy, byte[] name,
            PeerLinks links, NodeCounters counters) {
        this.lock = lock;
        this.config = config;
        this.scheduler = scheduler;
        this.entropy = entropy;
        this.name = name;
        this.links = links;
        this.counters = counters;
    }

    /** Keeps every replica's identity with {@code keeper} from now on (before {@link #seed}). */
    void keepIdentity(IdentityKeeper keeper) {
        synchronized (lock) {
            this.keeper = keeper;
        }
    }

    /** Seeds this sled's own universe and emits the start entry. */
    void seed() {
        Entry first;
        synchronized (lock) {
            replica = Replica.seed(NetworkId.random(entropy), keeper);
            entrySequence = 1;
            first = new Entry(entrySequence, Entry.Cause.START, replica.network(), replica);
        }
        entries.tryEmitNext(first);
    }

    /** The current universe's replica (a new object after every migration). */
    Replica replica() {
        synchronized (lock) {
            return replica;
        }
    }

    /** Entries into universes: the current one first, then each migration. */
    Flux<Entry> entries() {
        return entries.asFlux();
    }

    /** No more entries: the node stopped. */
    void complete() {
        entries.tryEmitComplete();
    }

    /** Cancels the wait for the winner (under the lock, as the node stops). */
    void disposeFloorExpiry() {
        if (floorExpiry != null) {
            floorExpiry.dispose();
        }
    }

    /** See {@link GossipNode#newSession}: a bootstrap while the replica has no universe, else gossip. */
    SyncSession newSession(LinkMux mux) {
        synchronized (lock) {
            // The replica, not a flag, says whether this sled still needs a universe: a bootstrap
            // whose adoption happened but whose session then failed has still joined.
            boolean newcomer = replica.network().isBootstrapping();
            SyncSession.Intent intent = newcomer ? SyncSession.Intent.BOOTSTRAP : SyncSession.Intent.GOSSIP;
            return new SyncSession(replica, intent, name, newcomer ? floor : null, () -> claim(mux));
        }
    }

    /** One bootstrap at a time: each claim costs a provider half its identity. */
    private boolean claim(LinkMux mux) {
        synchronized (lock) {
            if (claimant != null && claimant != mux && claimant.isOpen()) {
                return false;
            }
            claimant = mux;
            return true;
        }
    }

    /**
     * Emits the migration entry once the newcomer replica has adopted a universe, however its
     * session then ended (done, failed after adoption, or cut before the last COMMIT).
     */
    void noticeAdoption(LinkMux mux) {
        Entry entry = null;
        synchronized (lock) {
            if (claimant == mux) {
                claimant = null;
            }
            if (bootstrapping && !replica.network().isBootstrapping()) {
                bootstrapping = false;
                floor = null;
                if (floorExpiry != null) {
                    floorExpiry.dispose();
                }
                entrySequence++;
                entry = new Entry(entrySequence, Entry.Cause.MIGRATION, replica.network(), replica);
            }
        }
        if (entry != null) {
            entries.tryEmitNext(entry);
        }
    }

    /**
     * A session with {@code mux} failed with {@code error}: if it was the universe contest and
     * this sled lost it, the sled drops its replica and bootstraps into the winner's universe,
     * asking every other open link for a session.
     */
    void onSessionFailed(LinkMux mux, SyncException error) {
        if (!(error instanceof NetworkMismatchException)) {
            return;
        }
        NetworkMismatchException mismatch = (NetworkMismatchException) error;
        if (mismatch.localWins()) {
            return;
        }
        List<LinkMux> others = new ArrayList<>();
        synchronized (lock) {
            if (!replica.network().equals(mismatch.localNetwork())) {
                return;
            }
            // The loser drops its whole replica and joins the winner: a universe with more
            // history (minTicks) always wins, so a late joiner never wipes an established rack.
            replica = Replica.newcomer(keeper);
            bootstrapping = true;
            floor = new SyncSession.UniverseFloor(mismatch.remoteNetwork(), mismatch.remoteMinTicks());
            // If the winner stays out of reach, any universe is better than none.
            if (floorExpiry != null) {
                floorExpiry.dispose();
            }
            long patienceNs = config.sessionTimeout().toNanos() * GossipNode.BOOTSTRAP_PATIENCE_SESSIONS;
            floorExpiry = scheduler.schedule(this::dropFloor, patienceNs, TimeUnit.NANOSECONDS);
            counters.universeLosses.incrementAndGet();
            for (Peer p : links.peers()) {
                if (p.mux != null && p.mux != mux && p.mux.isOpen()) {
                    others.add(p.mux);
                }
            }
        }
        others.forEach(LinkMux::requestSession);
    }

    /** The winner stayed out of reach: the sled bootstraps from any peer. */
    private void dropFloor() {
        List<LinkMux> all = new ArrayList<>();
        synchronized (lock) {
            if (!bootstrapping) {
                return;
            }
            floor = null;
            for (Peer p : links.peers()) {
                if (p.mux != null && p.mux.isOpen()) {
                    all.add(p.mux);
                }
            }
        }
        all.forEach(LinkMux::requestSession);
    }
}
