package sush.gossip.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import sush.gossip.link.Link;
import sush.gossip.net.Transport;

/** A peer that sends garbage or stalls forever costs one link, never the sled. */
class HostilePeerTest {
    @Test
    void aPeerSendingGarbageLosesItsLinkAndTheRestKeepsGossiping() {
        Sleds rack = new Sleds(11);
        List<Link> evilLinks = hostile(rack, link -> link.send(new byte[] {0, 0, 0, 5, 42, 1, 2, 3, 4}));
        GossipNode a = rack.start("a");
        GossipNode b = rack.start("b");
        a.setPeers(Map.of("b", "b", "evil", "evil"));
        b.setPeers(Map.of("a", "a"));
        rack.advance(Duration.ofSeconds(2));
        assertFalse(evilLinks.isEmpty(), "a dialled the hostile peer");
        assertFalse(evilLinks.get(0).isOpen(), "the garbage link is poisoned");
        rack.send("b", "still-gossiping");
        rack.advance(Duration.ofMillis(10));
        assertEquals(List.of("still-gossiping"), rack.held("a"));
        assertEquals(a.network(), b.network());
    }

    @Test
    void aPeerThatStallsForeverIsCutByTheSessionTimeout() {
        Sleds rack = new Sleds(12);
        List<Link> evilLinks = hostile(rack, link -> { });
        GossipNode a = rack.start("a");
        rack.start("b");
        a.setPeers(Map.of("b", "b", "evil", "evil"));
        rack.nodes.get("b").setPeers(Map.of("a", "a"));
        rack.advance(Duration.ofSeconds(2));
        assertTrue(evilLinks.get(0).isOpen(), "a silent peer is given its session timeout");
        rack.advance(GossipConfig.DEFAULT_SESSION_TIMEOUT);
        assertFalse(evilLinks.get(0).isOpen(), "the stalled session poisoned only that link");
        rack.send("b", "alive");
        rack.advance(Duration.ofMillis(10));
        assertEquals(List.of("alive"), rack.held("a"));
    }

    @Test
    void aStrangerThatNeverNamesItsSledIsCutAtTheDeadlineHoweverItTrickles() {
        Sleds rack = new Sleds(13);
        GossipNode a = rack.start("a");
        a.setPeers(Map.of());
        Link stranger = stranger(rack, "evil", "a");
        stranger.receive().subscribe(bytes -> { }, error -> { });
        // A frame header announcing a frame within the first-frame bound, then one byte at a
        // time, well inside the idle timeout.
        stranger.send(new byte[] {0, 0, 0x0f, 0});
        Duration step = Duration.ofSeconds(2);
        for (Duration t = Duration.ZERO; t.compareTo(GossipNode.IDENTIFY_DEADLINE.minus(step)) < 0; t = t.plus(step)) {
            rack.advance(step);
            stranger.send(new byte[] {1});
            assertTrue(stranger.isOpen(), "still inside the deadline at " + t);
        }
        rack.advance(step.plusMillis(10));
        assertFalse(stranger.isOpen(), "cut at the deadline");
        assertEquals(1, a.unidentifiedRefused());
    }

    @Test
    void unidentifiedLinksAreBoundedAndPeersStillGossip() {
        Sleds rack = new Sleds(14);
        GossipNode a = rack.start("a");
        GossipNode b = rack.start("b");
        a.setPeers(Map.of("b", "b"));
        b.setPeers(Map.of("a", "a"));
        rack.advance(Duration.ofSeconds(2));
        List<Link> strangers = new ArrayList<>();
        for (int i = 0; i <= GossipNode.MAX_UNIDENTIFIED; i++) {
            Link l = stranger(rack, "evil" + i, "b");
            l.receive().subscribe(bytes -> { }, error -> { });
            strangers.add(l);
            rack.advance(Duration.ofMillis(1));
        }
        for (int i = 0; i < GossipNode.MAX_UNIDENTIFIED; i++) {
            assertTrue(strangers.get(i).isOpen(), "link " + i + " is within the bound");
        }
        assertFalse(strangers.get(GossipNode.MAX_UNIDENTIFIED).isOpen(), "exactly the bound: one more is closed");
        rack.send("a", "through");
        rack.advance(Duration.ofMillis(10));
        assertEquals(List.of("through"), rack.held("b"));
        rack.advance(GossipNode.IDENTIFY_DEADLINE);
        assertTrue(strangers.stream().noneMatch(Link::isOpen), "every stranger cut by its deadline");
        assertEquals(b.network(), a.network());
    }

    @Test
    void aStrangerDeclaringAFrameOverTheFirstFrameBoundIsCutAtItsHeader() {
        Sleds rack = new Sleds(15);
        GossipNode a = rack.start("a");
        a.setPeers(Map.of());
        Link stranger = stranger(rack, "evil", "a");
        stranger.receive().subscribe(bytes -> { }, error -> { });
        int declared = sush.gossip.sync.FramesAccess.maxFirstFrameBytes() + 1;
        stranger.send(java.nio.ByteBuffer.allocate(4).putInt(declared).array());
        rack.advance(Duration.ofMillis(10));
        assertFalse(stranger.isOpen(), "nothing over the bound is read from an unidentified peer");
        // One byte less is read (and cut at the deadline, as it never names a sled).
        Link patient = stranger(rack, "evil2", "a");
        patient.receive().subscribe(bytes -> { }, error -> { });
        patient.send(java.nio.ByteBuffer.allocate(4).putInt(declared - 1).array());
        rack.advance(Duration.ofMillis(10));
        assertTrue(patient.isOpen());
    }

    @Test
    void pushesHeldForTheirMissingPastAreBoundedPerLinkInCountAndBytes() {
        Sleds rack = new Sleds(16);
        List<Link> links = hostile(rack, "zz", link -> { });
        GossipNode a = rack.start("a");
        a.setPeers(Map.of("zz", "zz")); // "a" < "zz": a dials, so zz's pushes are a peer's
        rack.advance(Duration.ofSeconds(1));
        Link zz = links.get(0);
        // Pushes in a's universe whose base a has never seen: each waits for its past.
        sush.gossip.clock.Version base = sush.gossip.clock.Version.ZERO;
        for (int i = 0; i < 1000; i++) {
            base = base.tick(sush.gossip.clock.Id.ONE);
        }
        for (int i = 0; i < 600; i++) {
            sush.gossip.clock.Version v = base.tick(sush.gossip.clock.Id.ONE);
            sush.gossip.sync.Push push = new sush.gossip.sync.Push(a.network(), "zz".getBytes(
                    java.nio.charset.StandardCharsets.UTF_8), sush.gossip.sync.Targets.of(), base, v, List.of(
                    new sush.gossip.set.Message(v, new byte[16 * 1024])));
            zz.send(push.encode()); // a whole frame, length included
            base = v;
            rack.advance(Duration.ofMillis(1));
            long[] held = a.held();
            assertTrue(held[0] <= GossipNode.MAX_PENDING_PER_LINK, held[0] + " pushes held");
            assertTrue(held[1] <= GossipNode.MAX_PENDING_BYTES_PER_LINK, held[1] + " bytes held");
        }
        assertTrue(a.stats().gapPushes() >= 600, "every push was a gap: " + a.stats() + " open " + zz.isOpen());
        assertTrue(a.held()[1] > GossipNode.MAX_PENDING_BYTES_PER_LINK / 2, "held up to the link's share");
    }

    /** A raw endpoint named {@code name} that dials {@code to} (the memory network lets only listeners dial). */
    private static Link stranger(Sleds rack, String name, String to) {
        Transport t = rack.network.transport(name);
        t.listen(link -> { }).block();
        return t.dial(to).block();
    }

    /** A raw endpoint named "evil" that does {@code behaviour} with every link it accepts. */
    private static List<Link> hostile(Sleds rack, java.util.function.Consumer<Link> behaviour) {
        return hostile(rack, "evil", behaviour);
    }

    private static List<Link> hostile(Sleds rack, String name, java.util.function.Consumer<Link> behaviour) {
        List<Link> links = new ArrayList<>();
        Transport evil = rack.network.transport(name);
        evil.listen(link -> {
            links.add(link);
            link.receive().subscribe(bytes -> { }, error -> { });
            behaviour.accept(link);
        }).block();
        return links;
    }
}
