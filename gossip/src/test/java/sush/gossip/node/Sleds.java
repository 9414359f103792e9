package sush.gossip.node;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import reactor.test.scheduler.VirtualTimeScheduler;
import sush.gossip.Entropy;
import sush.gossip.net.MemoryNetwork;
import sush.gossip.set.Delivery;

/** Test fixture: gossip nodes on an in-memory network under virtual time. */
final class Sleds {
    static final GossipConfig CONFIG = GossipConfig.defaults("x");

    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    final MemoryNetwork network = new MemoryNetwork();
    final Map<String, GossipNode> nodes = new HashMap<>();
    final Map<String, List<Entry>> entries = new HashMap<>();
    private long seed;

    Sleds(long seed) {
        this.seed = seed;
    }

    GossipNode start(String name) {
        GossipNode node = new GossipNode(configFor(name), network.transport(name), time, Entropy.seeded(seed++));
        List<Entry> seen = new ArrayList<>();
        node.entries().subscribe(seen::add);
        entries.put(name, seen);
        node.start().block(Duration.ofSeconds(1));
        nodes.put(name, node);
        return node;
    }

    GossipConfig configFor(String name) {
        return new GossipConfig(name, CONFIG.sessionTimeout(), CONFIG.idleTimeout(), CONFIG.periodicSync(),
                CONFIG.reconnectMin(), CONFIG.reconnectMax());
    }

    /** Starts each sled, meshes every sled with every other, and lets them settle. */
    void startMeshed(Duration settle, String... names) {
        for (String n : names) {
            start(n);
        }
        fullMesh();
        advance(settle);
    }

    /** Every node peers with every other node that exists now. */
    void fullMesh() {
        for (GossipNode n : nodes.values()) {
            Map<String, String> peers = new HashMap<>();
            for (String other : nodes.keySet()) {
                peers.put(other, other);
            }
            n.setPeers(peers);
        }
    }

    void advance(Duration d) {
        time.advanceTimeBy(d);
    }

    long universes() {
        return nodes.values().stream().map(GossipNode::network).distinct().count();
    }

    /** The payloads a node's current replica holds, as strings. */
    List<String> held(String name) {
        return nodes.get(name).replica().readFrom(0, Integer.MAX_VALUE).stream()
                .map(Delivery::payload).map(p -> new String(p, StandardCharsets.UTF_8)).sorted()
                .collect(Collectors.toList());
    }

    void send(String name, String text) {
        nodes.get(name).send(text.getBytes(StandardCharsets.UTF_8));
    }
}
