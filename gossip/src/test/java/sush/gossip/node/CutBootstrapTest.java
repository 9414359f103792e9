package sush.gossip.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import reactor.core.publisher.Mono;
import sush.gossip.Entropy;
import sush.gossip.link.Link;
import sush.gossip.link.MemoryLink;
import sush.gossip.net.ForwardingTransport;
import sush.gossip.net.Transport;

/**
 * A sled that lost the universe contest bootstraps over a link cut at any byte: whatever the
 * cut, it ends in the winner's universe, reports its migration, and gossips normally.
 */
class CutBootstrapTest {
    @Test
    void aBootstrapCutAtAnyByteStillEndsInTheWinnersUniverse() {
        int runsThatRedialled = 0;
        for (long cut = 0; cut < 900; cut += 9) {
            Sleds rack = new Sleds(40);
            AtomicInteger dials = new AtomicInteger();
            long budget = cut;
            Transport inner = rack.network.transport("a");
            // "a" dials "b" (lower name); its second link carries b's bootstrap: cut it there.
            Transport cutting = new ForwardingTransport(inner) {
                @Override
                public Mono<Link> dial(String address) {
                    return super.dial(address).doOnNext(link -> {
                        if (dials.incrementAndGet() == 2) {
                            ((MemoryLink) link).cutAfter(budget);
                        }
                    });
                }
            };
            GossipNode a = new GossipNode(rack.configFor("a"), cutting, rack.time, Entropy.seeded(41));
            a.start().block(Duration.ofSeconds(1));
            a.send(new byte[] {1});
            GossipNode b = rack.start("b");
            a.setPeers(Map.of("b", "b"));
            b.setPeers(Map.of("a", "a"));
            rack.advance(Duration.ofSeconds(40));
            long cutAt = cut;
            assertEquals(a.network(), b.network(), () -> "cut at " + cutAt);
            assertFalse(b.network().isBootstrapping());
            List<Entry> entries = rack.entries.get("b");
            assertEquals(Entry.Cause.MIGRATION, entries.get(entries.size() - 1).cause(), "cut at " + cut);
            assertEquals(a.network(), entries.get(entries.size() - 1).network());
            b.send(new byte[] {2});
            rack.advance(Duration.ofMillis(10));
            assertEquals(2, a.replica().size(), "cut at " + cut + ": b gossips again");
            runsThatRedialled += dials.get() > 2 ? 1 : 0;
        }
        assertTrue(runsThatRedialled > 20, "the cuts did break bootstraps: " + runsThatRedialled);
    }
}
