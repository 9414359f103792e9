package sush.gossip.node;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.scheduler.Scheduler;
import sush.gossip.link.Link;
import sush.gossip.net.Transport;
import sush.gossip.sync.LinkMux;
import sush.gossip.sync.MuxHandler;
import sush.gossip.sync.Traffic;

/**
 * A sled's links to its peers: the peer set and the identity each must prove, the accepted links
 * not yet identified (bounded, and given a deadline), which side dials, dialling with backoff,
 * and the periodic sessions of the links this sled dialled. All state is guarded by the node's
 * lock ({@code lock}); a mux is never called while holding it.
 */
final class PeerLinks {
    /** The node's logger: these lines are the node's. */
    private static final Logger LOG = LoggerFactory.getLogger(GossipNode.class);

    private final Object lock;
    /** Who every link's mux calls back: the node. */
    private final MuxHandler handler;
    private final GossipConfig config;
    private final Transport transport;
    private final Scheduler scheduler;
    private final Traffic traffic;
    private final NodeCounters counters;
    private final Map<String, Peer> peers = new HashMap<>();
    /**
     * The sled each peer name must prove to be on an authenticated link (security.md section 1):
     * a link whose certificate names another sled, or a sled outside the peer set, is refused.
     */
    private Map<String, String> identities = Map.of();
    private final Set<LinkMux> anonymous = new HashSet<>();
    private boolean stopped;

    PeerLinks(Object lock, MuxHandler handler, GossipConfig config, Transport transport, Scheduler scheduler,
            Traffic traffic, NodeCounters counters) {
        this.lock = lock;
        this.handler = handler;
        this.config = config;
        this.transport = transport;
        this.scheduler = scheduler;
        this.traffic = traffic;
        this.counters = counters;
    }

    /** A peer's claimed name as a log line may show it: printable ASCII, at most 128 characters. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && i < 128; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }

    /** The peers, a live view: only under the lock. */
    Collection<Peer> peers() {
        return peers.values();
    }

    /** Whether the node stopped (under the lock). */
    boolean stopped() {
        return stopped;
    }

    /** Peers with an open link now (under the lock). */
    int connected() {
        return (int) peers.values().stream().filter(p -> p.mux != null && p.mux.isOpen()).count();
    }

    /** See {@link GossipNode#setPeers(Map, Map)}. */
    void setPeers(Map<String, String> newPeers, Map<String, String> newIdentities) {
        List<LinkMux> toClose = new ArrayList<>();
        synchronized (lock) {
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

    /** See {@link GossipNode#expectedPeers()}. */
    int expectedPeers() {
        synchronized (lock) {
            return peers.size();
        }
    }

    /** See {@link GossipNode#setPeers(Map)}. */
    void setPeers(Map<String, String> newPeers) {
        List<LinkMux> toClose = new ArrayList<>();
        synchronized (lock) {
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

    /** Marks the node stopped (under the lock): no link is admitted, accepted or dialled after. */
    void markStopped() {
        stopped = true;
    }

    /** Forgets every peer's link and every unidentified link, adding them to {@code toClose} (under the lock). */
    void forgetAll(List<LinkMux> toClose) {
        for (Peer p : peers.values()) {
            p.forget(toClose);
        }
        toClose.addAll(anonymous);
        anonymous.clear();
    }

    /** See {@link MuxHandler#admits}: a link is admitted as the peer it names, if it proves to be that peer. */
    boolean admits(LinkMux mux, byte[] sender) {
        String peerName = new String(sender, StandardCharsets.UTF_8);
        LinkMux replaced = null;
        synchronized (lock) {
            Peer p = peers.get(peerName);
            if (p == null || stopped) {
                if (!stopped) {
                    LOG.warn("refused a link from {}: not a peer of this sled", printable(peerName));
                }
                return false;
            }
            Optional<String> proven = mux.peerIdentity();
            if (proven.isPresent() && !proven.get().equals(identities.get(peerName))) {
                // A valid rack certificate, but the name it claims in PREAMBLE is not its own.
                counters.impostors.incrementAndGet();
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

    /** A link closed: its peer has none now, and is dialled again if this side dials. */
    void onClosed(LinkMux mux) {
        Peer redial = null;
        synchronized (lock) {
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

    /** A link accepted by the transport: unidentified until it names its sled, within the deadline and bound. */
    void accepted(Link link) {
        LinkMux mux = new LinkMux(link, handler, scheduler, config.sessionTimeout(), config.idleTimeout(), null, traffic);
        synchronized (lock) {
            if (stopped) {
                link.poison("sled stopping");
                return;
            }
            if (anonymous.size() >= GossipNode.MAX_UNIDENTIFIED) {
                counters.unidentifiedRefused.incrementAndGet();
                link.poison(GossipNode.MAX_UNIDENTIFIED + " links not yet identified");
                return;
            }
            anonymous.add(mux);
        }
        mux.start();
        scheduler.schedule(() -> {
            boolean still;
            synchronized (lock) {
                still = anonymous.contains(mux);
            }
            if (still) {
                counters.unidentifiedRefused.incrementAndGet();
                mux.close("did not name its sled within " + GossipNode.IDENTIFY_DEADLINE.toSeconds() + " s");
            }
        }, GossipNode.IDENTIFY_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Dials every peer this side dials that has no link and no dial under way. */
    void dialAll() {
        List<Peer> toDial = new ArrayList<>();
        synchronized (lock) {
            for (Peer p : peers.values()) {
                if (weDial(p) && p.mux == null && !p.dialing) {
                    toDial.add(p);
                }
            }
        }
        toDial.forEach(this::dial);
    }

    private void dial(Peer p) {
        synchronized (lock) {
            if (stopped || peers.get(p.name) != p || p.dialing || (p.mux != null && p.mux.isOpen())) {
                return;
            }
            p.dialing = true;
        }
        transport.dial(p.address).subscribe(link -> connected(p, link), error -> {
            synchronized (lock) {
                p.dialing = false;
            }
            scheduleRedial(p);
        });
    }

    private void connected(Peer p, Link link) {
        LinkMux mux = new LinkMux(link, handler, scheduler, config.sessionTimeout(), config.idleTimeout(),
                p.name.getBytes(StandardCharsets.UTF_8), traffic);
        synchronized (lock) {
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
        synchronized (lock) {
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

    /** Asks for a session on every open link this sled dialled (the dialling side runs the periodic ones). */
    void periodicSync() {
        List<LinkMux> due = new ArrayList<>();
        synchronized (lock) {
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
}
