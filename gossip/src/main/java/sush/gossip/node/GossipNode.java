package sush.gossip.node;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.net.Transport;
import sush.gossip.set.IdentityKeeper;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.sync.LinkMux;
import sush.gossip.sync.MuxHandler;
import sush.gossip.sync.Push;
import sush.gossip.sync.SyncException;
import sush.gossip.sync.SyncOutcome;
import sush.gossip.sync.SyncSession;
import sush.gossip.sync.Traffic;

/**
 * One sled's gossip: its replica, its links to the peers it is told about, pushes of new
 * messages, periodic sessions, and the leaderless universe contest (D-008, D-009).
 *
 * <p>Lock order: a {@link LinkMux} may call in while holding its own lock; this class never
 * calls a mux while holding its own lock. Its parts ({@link PeerLinks}, {@link UniverseContest},
 * {@link PushPath}) guard their state with this node's lock, and keep the same rule.
 */
public final class GossipNode implements MuxHandler {
    /** Session timeouts a loser waits for its winner before it bootstraps from anyone. */
    static final int BOOTSTRAP_PATIENCE_SESSIONS = 3;
    /** Pushes held back because this sled lacks part of their base; the oldest is dropped past it. */
    static final int MAX_PENDING_PUSHES = 1024;
    /** The same bound in bytes of held messages (issue 22: 4,096 pushes of 975 KB were 4 GiB). */
    static final long MAX_PENDING_BYTES = 8L << 20;
    /**
     * One link's share of the hold-back queue, in pushes and bytes: past it that link's oldest
     * held push is dropped (and a session with it asked for), not another sender's.
     */
    static final int MAX_PENDING_PER_LINK = 256;
    static final long MAX_PENDING_BYTES_PER_LINK = 2L << 20;
    /**
     * How long a push may wait for its missing causal past to arrive by other pushes (they are
     * usually in flight) before this sled runs a session with its sender instead.
     */
    static final Duration GAP_PATIENCE = Duration.ofMillis(250);

    /**
     * Bound on accepted links whose peer has not yet named its sled (issue 22): past it a new
     * connection is closed at once, so strangers cannot pile up buffers (each may hold up to two
     * frames of {@code Frames.MAX_FRAME_BYTES} while it is read).
     */
    public static final int MAX_UNIDENTIFIED = 64;
    /**
     * An accepted link must name its sled (a PREAMBLE or a PUSH) within this, however it trickles
     * bytes: the idle timeout alone is reset by every byte.
     */
    public static final Duration IDENTIFY_DEADLINE = Duration.ofSeconds(10);

    private final GossipConfig config;
    private final Transport transport;
    private final Scheduler scheduler;
    private final Traffic traffic = new Traffic();
    private final NodeCounters counters = new NodeCounters();
    /** The peer set and the links to it. */
    private final PeerLinks links;
    /** The current universe and the contest between universes. */
    private final UniverseContest universe;
    /** Pushes sent, received, relayed and held back. */
    private final PushPath pushes;
    private Disposable periodic;

    public GossipNode(GossipConfig config, Transport transport, Scheduler scheduler, Entropy entropy) {
        this.config = config;
        byte[] name = config.name().getBytes(StandardCharsets.UTF_8);
        int nameHash = Peer.hash(name);
        this.transport = transport;
        this.scheduler = scheduler;
        // One lock, this node's, guards the state of all three parts.
        this.links = new PeerLinks(this, this, config, transport, scheduler, traffic, counters);
        this.universe = new UniverseContest(this, config, scheduler, entropy, name, links, counters);
        this.pushes = new PushPath(this, scheduler, name, nameHash, links, universe, counters);
    }

    /**
     * Keeps this sled's identity in each universe with {@code keeper} (call before {@link #start}):
     * a later life that joins the same universe takes its identity back from the keeper's
     * bookmark instead of forking a provider's, so versions stay bounded by the sleds, not by
     * their restarts (bounded-gossip.md section 4, D-053).
     */
    public GossipNode keepIdentity(IdentityKeeper keeper) {
        universe.keepIdentity(keeper);
        return this;
    }

    /** Seeds this sled's own universe, starts listening, dials the peers it is the dialer for. */
    public Mono<Void> start() {
        universe.seed();
        return transport.listen(links::accepted).doOnSuccess(v -> {
            long periodNs = config.periodicSync().toNanos();
            synchronized (this) {
                if (!links.stopped()) {
                    periodic = scheduler.schedulePeriodically(links::periodicSync, periodNs, periodNs,
                            TimeUnit.NANOSECONDS);
                }
            }
            links.dialAll();
        });
    }

    /** The address peers dial; valid after {@link #start()}. */
    public String address() {
        return transport.localAddress();
    }

    public String name() {
        return config.name();
    }

    /** The current universe's replica (a new object after every migration). */
    public Replica replica() {
        return universe.replica();
    }

    public synchronized NetworkId network() {
        return universe.replica().network();
    }

    /** Entries into universes: the current one first, then each migration. */
    public Flux<Entry> entries() {
        return universe.entries();
    }

    public Traffic traffic() {
        return traffic;
    }

    /** Counters for operators and benchmarks. */
    public record Stats(long sessions, long sessionMessages, long foreignPushes, long gapPushes, long failedSessions,
            long universeLosses, int connectedPeers, Map<SyncException.Kind, Long> failuresByKind) {
    }

    public synchronized Stats stats() {
        return counters.stats(links.connected());
    }

    /**
     * Sets the peers and the sled each must prove to be on an authenticated link ({@code
     * identities}: peer name to the name in its certificate). Links already admitted under
     * another identity are closed.
     */
    public void setPeers(Map<String, String> newPeers, Map<String, String> newIdentities) {
        links.setPeers(newPeers, newIdentities);
    }

    /** The peers this sled is told to link to (expected), connected or not. */
    public int expectedPeers() {
        return links.expectedPeers();
    }

    /** Authenticated links refused because the name they claimed was not the one they proved. */
    public long impostors() {
        return counters.impostors.get();
    }

    /**
     * Replaces the peer set (name to address). Links to removed peers close; new peers are
     * dialled by whichever side has the lower address; sessions from anyone else are refused.
     */
    public void setPeers(Map<String, String> newPeers) {
        links.setPeers(newPeers);
    }

    /**
     * Adds a message to the current universe and pushes it to every connected peer. Refused
     * with {@code NO_IDENTITY} while the sled is bootstrapping into a universe.
     */
    public Version send(byte[] payload) {
        return pushes.send(payload);
    }

    /** Closes every link and stops. */
    public void stop() {
        List<LinkMux> toClose = new ArrayList<>();
        synchronized (this) {
            if (links.stopped()) {
                return;
            }
            links.markStopped();
            if (periodic != null) {
                periodic.dispose();
            }
            universe.disposeFloorExpiry();
            links.forgetAll(toClose);
        }
        toClose.forEach(m -> m.close("sled stopping"));
        transport.close();
        universe.complete();
    }

    @Override
    public boolean admits(LinkMux mux, byte[] sender) {
        return links.admits(mux, sender);
    }

    @Override
    public SyncSession newSession(LinkMux mux) {
        return universe.newSession(mux);
    }

    @Override
    public void onPush(LinkMux mux, Push push) {
        pushes.onPush(mux, push);
    }

    /** Pushes held back now, and their bytes (tests, metrics). */
    long[] held() {
        return pushes.held();
    }

    @Override
    public void onClosed(LinkMux mux) {
        universe.noticeAdoption(mux);
        links.onClosed(mux);
    }

    @Override
    public void onSessionDone(LinkMux mux, SyncOutcome outcome) {
        counters.sessions.incrementAndGet();
        counters.sessionMessages.addAndGet(outcome.received());
        universe.noticeAdoption(mux);
        // A session may have brought the past that held-back pushes were waiting for.
        pushes.retryPending();
    }

    @Override
    public void onSessionFailed(LinkMux mux, SyncException error) {
        counters.failedSessions.incrementAndGet();
        counters.failuresByKind.computeIfAbsent(error.kind(), k -> new AtomicLong()).incrementAndGet();
        universe.noticeAdoption(mux);
        universe.onSessionFailed(mux, error);
    }

    /** Accepted links closed for staying unidentified too long, or for finding the bound full. */
    public long unidentifiedRefused() {
        return counters.unidentifiedRefused.get();
    }
}
