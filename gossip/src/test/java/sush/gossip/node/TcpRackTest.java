package sush.gossip.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import sush.gossip.Entropy;
import sush.gossip.net.TcpTransport;

/** Three sleds over real loopback TCP converge on one universe and gossip. */
class TcpRackTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @Test
    void threeSledsOverTcpConvergeAndDeliver() throws InterruptedException {
        Scheduler scheduler = Schedulers.newParallel("tcp-rack-test", 2);
        List<GossipNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                GossipNode n = new GossipNode(GossipConfig.defaults("sled-" + i),
                        new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2)), scheduler, Entropy.seeded(50 + i));
                n.start().block(Duration.ofSeconds(5));
                nodes.add(n);
            }
            Map<String, String> peers = new HashMap<>();
            nodes.forEach(n -> peers.put(n.name(), n.address()));
            nodes.forEach(n -> n.setPeers(peers));
            await(() -> nodes.stream().map(GossipNode::network).distinct().count() == 1
                    && !nodes.get(0).network().isBootstrapping());
            nodes.get(1).send("over-tcp".getBytes(StandardCharsets.UTF_8));
            await(() -> nodes.stream().allMatch(n -> n.replica().size() == 1));
            assertEquals("over-tcp", new String(nodes.get(2).replica().readFrom(0, 1).get(0).payload(),
                    StandardCharsets.UTF_8));
            // Links poisoned by the universe contest come back: one connection per pair remains.
            await(() -> nodes.stream().allMatch(n -> n.stats().connectedPeers() == 2));
        } finally {
            nodes.forEach(GossipNode::stop);
            scheduler.dispose();
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        Awaitility.await("condition not reached within " + PATIENCE).atMost(PATIENCE).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(5)).until(condition::getAsBoolean);
    }
}
