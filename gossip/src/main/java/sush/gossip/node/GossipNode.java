package sush.gossip.node;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.link.Link;
import sush.gossip.net.Transport;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.sync.LinkMux;
import sush.gossip.sync.MuxHandler;
import sush.gossip.sync.NetworkMismatchException;
import sush.gossip.sync.Push;
import sush.gossip.sync.Targets;
import sush.gossip.sync.SyncException;
import sush.gossip.sync.SyncOutcome;
import sush.gossip.sync.SyncSession;
import sush.gossip.sync.Traffic;

/**
 * One sled's gossip: its replica, its links to the peers it is told about, pushes of new
 * messages, periodic sessions, and the leaderless universe contest (D-008, D-009).
 *
 * <p>Lock order: a {@link LinkMux} may call in while holding its own lock; this class never
 * calls a mux while holding its own lock.
 */
public final class GossipNode implements MuxHandler {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GossipNode.class);

    /** A peer's claimed name as a log line may show it: printable ASCII, at most 128 characters. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && i < 128; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }

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

    private final GossipConfig config;
    private final byte[] name;
    private final int nameHash;
    private final Transport transport;
    private final Scheduler scheduler;
    private final Entropy entropy;
    private final Traffic traffic = new Traffic();
    private final Sinks.Many<Entry> entries = Sinks.many().replay().latest();
    private final Map<String, Peer> peers = new HashMap<>();
    /**
     * The sled each peer name must prove to be on an authenticated link (security.md section 1):
     * a link whose certificate names another sled, or a sled outside the peer set, is refused.
     */
    private Map<String, String> identities = Map.of();
    private final AtomicLong impostors = new AtomicLong();
    private final AtomicLong unidentifiedRefused = new AtomicLong();
    private final Set<LinkMux> anonymous = new HashSet<>();
    private final AtomicLong foreignPushes = new AtomicLong();
    private final AtomicLong gapPushes = new AtomicLong();
    private final AtomicLong failedSessions = new AtomicLong();
    private final AtomicLong sessions = new AtomicLong();
    private final AtomicLong sessionMessages = new AtomicLong();
    private final Map<SyncException.Kind, AtomicLong> failuresByKind = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicLong universeLosses = new AtomicLong();
    private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();
    /** Bytes held in {@link #pending}, in all and per link (under this object's lock). */
    private long pendingBytes;
    private final java.util.Map<LinkMux, long[]> pendingPerLink = new java.util.IdentityHashMap<>();
    private Replica replica;
    private boolean bootstrapping;
    private SyncSession.UniverseFloor floor;
    private Disposable floorExpiry;
    /** The link whose session holds this sled's one bootstrap claim, if any. */
    private LinkMux claimant;
    private long entrySequence;
    private boolean stopped;
    private Disposable periodic;

    public GossipNode(GossipConfig config, Transport transport, Scheduler scheduler, Entropy entropy) {
        this.config = config;
        this.name = config.name().getBytes(StandardCharsets.UTF_8);
        this.nameHash = hash(name);
        this.transport = transport;
        this.scheduler = scheduler;
        this.entropy = entropy;
    }

    /** Seeds this sled's own universe, starts listening, dials the peers it is the dialer for. */
    public Mono<Void> start() {
        Entry first;
        synchronized (this) {
            replica = Replica.seed(NetworkId.random(entropy));
            entrySequence = 1;
            first = new Entry(entrySequence, Entry.Cause.START, replica.network(), replica);
        }
        entries.tryEmitNext(first);
        return transport.listen(this::accepted).doOnSuccess(v -> {
            long periodNs = config.periodicSync().toNanos();
            synchronized (this) {
                if (!stopped) {
                    periodic = scheduler.schedulePeriodically(this::periodicSync, periodNs, periodNs,
                            TimeUnit.NANOSECONDS);
                }
            }
            dialAll();
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
    public synchronized Replica replica() {
        return replica;
    }

    public synchronized NetworkId network() {
        return replica.network();
    }

    /** Entries into universes: the current one first, then each migration. */
    public Flux<Entry> entries() {
        return entries.asFlux();
    }

    public Traffic traffic() {
        return traffic;
    }

    /** Counters for operators and benchmarks. */
    public record Stats(long sessions, long sessionMessages, long foreignPushes, long gapPushes, long failedSessions,
            long universeLosses, int connectedPeers, Map<SyncException.Kind, Long> failuresByKind) {
    }

    public synchronized Stats stats() {
        int connected = (int) peers.values().stream().filter(p -> p.mux != null && p.mux.isOpen()).count();
        Map<SyncException.Kind, Long> kinds = new java.util.EnumMap<>(SyncException.Kind.class);
        failuresByKind.forEach((k, v) -> kinds.put(k, v.get()));
        return new Stats(sessions.get(), sessionMessages.get(), foreignPushes.get(), gapPushes.get(), failedSessions.get(), universeLosses.get(), connected,
                kinds);
    }

    /**
     * Replaces the peer set (name to address). Links to removed peers close; new peers are
     * dialled by whichever side has the lower address; sessions from anyone else are refused.
     */
    /**
     * Sets the peers and the sled each must prove to be on an authenticated link ({@code
     * identities}: peer name to the name in its certificate). Links already admitted under
     * another identity are closed.
     */
    public void setPeers(Map<String, String> newPeers, Map<String, String> newIdentities) {
        List<LinkMux> toClose = new ArrayList<>();
        synchronized (this) {
            identities = Map.copyOf(newIdentities);
            for (Peer p : peers.values()) {
                if (p.mux != null && p.mux.peerIdentity().isPresent()
                        && !p.mux.peerIdentity().get().equals(identities.get(p.name))) {
                    toClose.add(p.mux);
                }
            }
        }
        toClose.forEach(m -> m.close("the peer's proven identity no longer matches the peer set"));
        setPeers(newPeers);
    }

    /** The peers this sled is told to link to (expected), connected or not. */
    public synchronized int expectedPeers() {
        return peers.size();
    }

    /** Authenticated links refused because the name they claimed was not the one they proved. */
    public long impostors() {
        return impostors.get();
    }

    public void setPeers(Map<String, String> newPeers) {
        List<LinkMux> toClose = new ArrayList<>();
        synchronized (this) {
            for (Peer p : new ArrayList<>(peers.values())) {
                String address = newPeers.get(p.name);
                if (address == null || !address.equals(p.address)) {
                    peers.remove(p.name);
                    p.forget(toClose);
                }
            }
            newPeers.forEach((peerName, address) -> {
                if (!peerName.equals(config.name())) {
                    peers.computeIfAbsent(peerName, n -> new Peer(n, address, config.reconnectMin()));
                }
            });
        }
        toClose.forEach(m -> m.close("peer removed from the peer set"));
        dialAll();
    }

    /**
     * Adds a message to the current universe and pushes it to every connected peer. Refused
     * with {@code NO_IDENTITY} while the sled is bootstrapping into a universe.
     */
    public Version send(byte[] payload) {
        Replica r;
        synchronized (this) {
            r = replica;
        }
        Replica.Sent sent = r.sendOnBase(payload);
        List<LinkMux> targets = new ArrayList<>();
        int[] hashes;
        int count = 0;
        synchronized (this) {
            hashes = new int[peers.size() + 1];
            if (replica != r) {
                // The universe was lost while we sent: the message went down with it.
                throw new sush.gossip.set.ReplicaException(sush.gossip.set.ReplicaException.Kind.UNIVERSE_CHANGED,
                        "the sled left universe " + r.network() + " during the send");
            }
            hashes[count++] = nameHash;
            for (Peer p : peers.values()) {
                if (p.mux != null && p.mux.isOpen()) {
                    targets.add(p.mux);
                    hashes[count++] = p.hash;
                }
            }
        }
        Push push = new Push(r.network(), name, Targets.of(hashes, count), sent.base(), sent.version(),
                List.of(new Message(sent.version(), payload)));
        byte[] frame = push.encode();
        targets.forEach(m -> m.push(frame));
        return sent.version();
    }

    /** Closes every link and stops. */
    public void stop() {
        List<LinkMux> toClose = new ArrayList<>();
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            if (periodic != null) {
                periodic.dispose();
            }
            if (floorExpiry != null) {
                floorExpiry.dispose();
            }
            for (Peer p : peers.values()) {
                p.forget(toClose);
            }
            toClose.addAll(anonymous);
            anonymous.clear();
        }
        toClose.forEach(m -> m.close("sled stopping"));
        transport.close();
        entries.tryEmitComplete();
    }

    @Override
    public boolean admits(LinkMux mux, byte[] sender) {
        String peerName = new String(sender, StandardCharsets.UTF_8);
        LinkMux replaced = null;
        synchronized (this) {
            Peer p = peers.get(peerName);
            if (p == null || stopped) {
                if (!stopped) {
                    LOG.warn("refused a link from {}: not a peer of this sled", printable(peerName));
                }
                return false;
            }
            java.util.Optional<String> proven = mux.peerIdentity();
            if (proven.isPresent() && !proven.get().equals(identities.get(peerName))) {
                // A valid rack certificate, but the name it claims in PREAMBLE is not its own.
                impostors.incrementAndGet();
                LOG.warn("refused a link claiming to be peer {}: its certificate names {}", printable(peerName),
                        printable(proven.get()));
                return false;
            }
            if (anonymous.remove(mux)) {
                replaced = p.mux;
                p.mux = mux;
                p.dialedByUs = false;
                LOG.info("link up with peer {} (accepted)", p.name);
            } else if (p.mux != mux) {
                return false;
            }
        }
        if (replaced != null && replaced != mux) {
            LinkMux old = replaced;
            scheduler.schedule(() -> old.close("replaced by a newer link"));
        }
        return true;
    }

    @Override
    public synchronized SyncSession newSession(LinkMux mux) {
        // The replica, not a flag, says whether this sled still needs a universe: a bootstrap
        // whose adoption happened but whose session then failed has still joined.
        boolean newcomer = replica.network().isBootstrapping();
        SyncSession.Intent intent = newcomer ? SyncSession.Intent.BOOTSTRAP : SyncSession.Intent.GOSSIP;
        return new SyncSession(replica, intent, name, newcomer ? floor : null, () -> claim(mux));
    }

    /** One bootstrap at a time: each claim costs a provider half its identity. */
    private synchronized boolean claim(LinkMux mux) {
        if (claimant != null && claimant != mux && claimant.isOpen()) {
            return false;
        }
        claimant = mux;
        return true;
    }

    /**
     * Emits the migration entry once the newcomer replica has adopted a universe, however its
     * session then ended (done, failed after adoption, or cut before the last COMMIT).
     */
    private void noticeAdoption(LinkMux mux) {
        Entry entry = null;
        synchronized (this) {
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

    @Override
    public void onSessionDone(LinkMux mux, SyncOutcome outcome) {
        sessions.incrementAndGet();
        sessionMessages.addAndGet(outcome.received());
        noticeAdoption(mux);
        // A session may have brought the past that held-back pushes were waiting for.
        retryPending();
    }

    @Override
    public void onSessionFailed(LinkMux mux, SyncException error) {
        failedSessions.incrementAndGet();
        failuresByKind.computeIfAbsent(error.kind(), k -> new AtomicLong()).incrementAndGet();
        noticeAdoption(mux);
        if (!(error instanceof NetworkMismatchException)) {
            return;
        }
        NetworkMismatchException mismatch = (NetworkMismatchException) error;
        if (mismatch.localWins()) {
            return;
        }
        List<LinkMux> others = new ArrayList<>();
        synchronized (this) {
            if (!replica.network().equals(mismatch.localNetwork())) {
                return;
            }
            // The loser drops its whole replica and joins the winner: a universe with more
            // history (minTicks) always wins, so a late joiner never wipes an established rack.
            replica = Replica.newcomer();
            bootstrapping = true;
            floor = new SyncSession.UniverseFloor(mismatch.remoteNetwork(), mismatch.remoteMinTicks());
            // If the winner stays out of reach, any universe is better than none.
            if (floorExpiry != null) {
                floorExpiry.dispose();
            }
            long patienceNs = config.sessionTimeout().toNanos() * BOOTSTRAP_PATIENCE_SESSIONS;
            floorExpiry = scheduler.schedule(this::dropFloor, patienceNs, TimeUnit.NANOSECONDS);
            universeLosses.incrementAndGet();
            for (Peer p : peers.values()) {
                if (p.mux != null && p.mux != mux && p.mux.isOpen()) {
                    others.add(p.mux);
                }
            }
        }
        others.forEach(LinkMux::requestSession);
    }

    private void dropFloor() {
        List<LinkMux> all = new ArrayList<>();
        synchronized (this) {
            if (!bootstrapping) {
                return;
            }
            floor = null;
            for (Peer p : peers.values()) {
                if (p.mux != null && p.mux.isOpen()) {
                    all.add(p.mux);
                }
            }
        }
        all.forEach(LinkMux::requestSession);
    }

    @Override
    public void onPush(LinkMux mux, Push push) {
        Push.Result result = apply(mux, push);
        if (result == Push.Result.GAP) {
            gapPushes.incrementAndGet();
            hold(new Pending(mux, push));
        } else if (result == Push.Result.APPLIED) {
            relay(mux, push);
            retryPending();
        }
    }

    private Push.Result apply(LinkMux mux, Push push) {
        Replica r;
        synchronized (this) {
            r = replica;
        }
        try {
            Push.Result result = push.applyTo(r);
            if (result == Push.Result.FOREIGN) {
                foreignPushes.incrementAndGet();
            }
            return result;
        } catch (SyncException e) {
            mux.close(e.getMessage());
            return Push.Result.FOREIGN;
        }
    }

    /**
     * Holds a push whose base this sled does not hold yet: causal delivery cannot add it before
     * its past, which usually arrives moments later by another push. If it is still waiting
     * after {@link #GAP_PATIENCE}, a session with its sender brings everything.
     */
    private void hold(Pending p) {
        List<Pending> dropped = new ArrayList<>();
        synchronized (this) {
            pending.addLast(p);
            pendingBytes += p.bytes;
            long[] share = pendingPerLink.computeIfAbsent(p.from, k -> new long[2]);
            share[0]++;
            share[1] += p.bytes;
            // The sender's own oldest first, while it is over its share; then anyone's oldest.
            while (share[0] > MAX_PENDING_PER_LINK || share[1] > MAX_PENDING_BYTES_PER_LINK) {
                Pending oldest = null;
                for (Pending q : pending) {
                    if (q.from == p.from) {
                        oldest = q;
                        break;
                    }
                }
                unhold(oldest);
                dropped.add(oldest);
            }
            while (pending.size() > MAX_PENDING_PUSHES || pendingBytes > MAX_PENDING_BYTES) {
                Pending oldest = pending.peekFirst();
                unhold(oldest);
                dropped.add(oldest);
            }
        }
        // What was dropped comes again by a session with its sender.
        dropped.stream().map(Pending::from).distinct().forEach(LinkMux::requestSession);
        // The missing past may have been applied on another link's thread between our failed
        // apply and the hold; retrying now closes that race (else it waits for the timer).
        retryPending();
        scheduler.schedule(() -> {
            boolean waiting;
            synchronized (this) {
                waiting = unhold(p);
            }
            if (waiting) {
                p.from.requestSession();
            }
        }, GAP_PATIENCE.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Applies every held push whose base has arrived, until none does. */
    private void retryPending() {
        boolean progress = true;
        while (progress) {
            progress = false;
            List<Pending> waiting;
            synchronized (this) {
                if (pending.isEmpty()) {
                    return;
                }
                waiting = new ArrayList<>(pending);
            }
            for (Pending p : waiting) {
                Push.Result result = apply(p.from, p.push);
                if (result != Push.Result.GAP) {
                    synchronized (this) {
                        unhold(p);
                    }
                    if (result == Push.Result.APPLIED) {
                        relay(p.from, p.push);
                        progress = true;
                    }
                }
            }
        }
    }

    /** Removes a held push and its bytes from the counts; false if it was no longer held. Under the lock. */
    private boolean unhold(Pending p) {
        if (!pending.remove(p)) {
            return false;
        }
        pendingBytes -= p.bytes;
        long[] share = pendingPerLink.get(p.from);
        share[0]--;
        share[1] -= p.bytes;
        if (share[0] == 0) {
            pendingPerLink.remove(p.from);
        }
        return true;
    }

    /** Pushes held back now, and their bytes (tests, metrics). */
    synchronized long[] held() {
        return new long[] {pending.size(), pendingBytes};
    }

    /** A push waiting for its base; {@code bytes} counts its payloads and a per-message overhead. */
    private record Pending(LinkMux from, Push push, long bytes) {
        Pending(LinkMux from, Push push) {
            this(from, push, push.messages().stream().mapToLong(m -> m.payloadSize() + 64L).sum() + 64);
        }
    }

    /** Forwards a push to connected peers it has not been pushed to yet (never back). */
    private void relay(LinkMux from, Push push) {
        List<LinkMux> targets = new ArrayList<>();
        int[] added;
        int count = 0;
        synchronized (this) {
            added = new int[peers.size() + 1];
            added[count++] = nameHash;
            for (Peer p : peers.values()) {
                if (p.mux != null && p.mux != from && p.mux.isOpen() && !push.targets().contains(p.hash)) {
                    targets.add(p.mux);
                    added[count++] = p.hash;
                }
            }
        }
        if (targets.isEmpty()) {
            return;
        }
        Targets hashes = push.targets().with(added, count);
        if (hashes.size() > Push.MAX_TARGETS) {
            return;
        }
        Push relayed = new Push(push.network(), name, hashes, push.base(), push.frontier(), push.messages());
        byte[] frame = relayed.encode();
        targets.forEach(m -> m.push(frame));
    }

    @Override
    public void onClosed(LinkMux mux) {
        noticeAdoption(mux);
        Peer redial = null;
        synchronized (this) {
            anonymous.remove(mux);
            for (Peer p : peers.values()) {
                if (p.mux == mux) {
                    LOG.info("link down with peer {}", p.name);
                    p.mux = null;
                    if (weDial(p)) {
                        redial = p;
                    }
                }
            }
        }
        if (redial != null) {
            scheduleRedial(redial);
        }
    }

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

    private void accepted(Link link) {
        LinkMux mux = new LinkMux(link, this, scheduler, config.sessionTimeout(), config.idleTimeout(), null, traffic);
        synchronized (this) {
            if (stopped) {
                link.poison("sled stopping");
                return;
            }
            if (anonymous.size() >= MAX_UNIDENTIFIED) {
                unidentifiedRefused.incrementAndGet();
                link.poison(MAX_UNIDENTIFIED + " links not yet identified");
                return;
            }
            anonymous.add(mux);
        }
        mux.start();
        scheduler.schedule(() -> {
            boolean still;
            synchronized (this) {
                still = anonymous.contains(mux);
            }
            if (still) {
                unidentifiedRefused.incrementAndGet();
                mux.close("did not name its sled within " + IDENTIFY_DEADLINE.toSeconds() + " s");
            }
        }, IDENTIFY_DEADLINE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Accepted links closed for staying unidentified too long, or for finding the bound full. */
    public long unidentifiedRefused() {
        return unidentifiedRefused.get();
    }

    private void dialAll() {
        List<Peer> toDial = new ArrayList<>();
        synchronized (this) {
            for (Peer p : peers.values()) {
                if (weDial(p) && p.mux == null && !p.dialing) {
                    toDial.add(p);
                }
            }
        }
        toDial.forEach(this::dial);
    }

    private void dial(Peer p) {
        synchronized (this) {
            if (stopped || peers.get(p.name) != p || p.dialing || (p.mux != null && p.mux.isOpen())) {
                return;
            }
            p.dialing = true;
        }
        transport.dial(p.address).subscribe(link -> connected(p, link), error -> {
            synchronized (this) {
                p.dialing = false;
            }
            scheduleRedial(p);
        });
    }

    private void connected(Peer p, Link link) {
        LinkMux mux = new LinkMux(link, this, scheduler, config.sessionTimeout(), config.idleTimeout(),
                p.name.getBytes(StandardCharsets.UTF_8), traffic);
        synchronized (this) {
            p.dialing = false;
            if (stopped || peers.get(p.name) != p) {
                link.poison("peer no longer wanted");
                return;
            }
            p.mux = mux;
            p.dialedByUs = true;
            p.backoff = config.reconnectMin();
        }
        LOG.info("link up with peer {} (dialled)", p.name);
        mux.start();
        mux.requestSession();
    }

    private void scheduleRedial(Peer p) {
        Duration delay;
        synchronized (this) {
            if (stopped || peers.get(p.name) != p || !weDial(p)) {
                return;
            }
            delay = p.backoff;
            Duration doubled = p.backoff.multipliedBy(2);
            p.backoff = doubled.compareTo(config.reconnectMax()) > 0 ? config.reconnectMax() : doubled;
            if (p.redial != null) {
                p.redial.dispose();
            }
            p.redial = scheduler.schedule(() -> dial(p), delay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void periodicSync() {
        List<LinkMux> due = new ArrayList<>();
        synchronized (this) {
            for (Peer p : peers.values()) {
                if (p.mux != null && p.dialedByUs && p.mux.isOpen()) {
                    due.add(p.mux);
                }
            }
        }
        due.forEach(LinkMux::requestSession);
    }

    /**
     * The side with the lower name dials, so each pair has one connection. Names, not
     * addresses: both sides know both names exactly, while a sled's own listening address
     * (0.0.0.0, a port picked at bind) may differ from how its peers reach it (D-008).
     */
    private boolean weDial(Peer p) {
        return config.name().compareTo(p.name) < 0;
    }

    private static int hash(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            return ((d[0] & 0xFF) << 24) | ((d[1] & 0xFF) << 16) | ((d[2] & 0xFF) << 8) | (d[3] & 0xFF);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** What this sled knows of one peer. */
    private static final class Peer {
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
            this.hash = GossipNode.hash(name.getBytes(StandardCharsets.UTF_8));
            this.backoff = backoff;
        }

        void forget(List<LinkMux> toClose) {
            if (mux != null) {
                toClose.add(mux);
                mux = null;
            }
            if (redial != null) {
                redial.dispose();
            }
        }
    }
}
