package sush.gossip.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import sush.gossip.set.NetworkId;

/** A rack of gossip nodes on an in-memory network, under virtual time. */
class GossipNodeTest {
    private static final Duration SETTLE = Duration.ofSeconds(3);

    @Test
    void sledsColdStartedSeparatelyConvergeOnOneUniverseAndDeliverToAll() {
        Sleds rack = new Sleds(1);
        for (String n : List.of("a", "b", "c")) {
            rack.start(n);
        }
        assertEquals(3, rack.universes(), "each sled seeds its own universe");
        rack.fullMesh();
        rack.advance(SETTLE);
        assertEquals(1, rack.universes());
        rack.send("b", "hello");
        rack.advance(Duration.ofMillis(1));
        for (String n : List.of("a", "b", "c")) {
            assertEquals(List.of("hello"), rack.held(n), n);
        }
    }

    @Test
    void aLateJoinerLosesToTheEstablishedRack() {
        Sleds rack = new Sleds(2);
        rack.startMeshed(SETTLE, "a", "b", "c");
        rack.send("a", "history");
        rack.advance(SETTLE);
        NetworkId established = rack.nodes.get("a").network();
        rack.start("d");
        rack.fullMesh();
        rack.advance(SETTLE);
        assertEquals(1, rack.universes());
        assertEquals(established, rack.nodes.get("d").network());
        assertEquals(List.of("history"), rack.held("d"));
        List<Entry> dEntries = rack.entries.get("d");
        assertEquals(Entry.Cause.MIGRATION, dEntries.get(dEntries.size() - 1).cause());
    }

    @Test
    void aSledReplacedByAFreshProcessReconverges() {
        Sleds rack = new Sleds(3);
        rack.startMeshed(SETTLE, "a", "b", "c");
        rack.send("a", "before");
        rack.advance(SETTLE);
        NetworkId universe = rack.nodes.get("a").network();
        rack.nodes.get("c").stop();
        rack.start("c");
        rack.fullMesh();
        rack.advance(SETTLE);
        assertEquals(universe, rack.nodes.get("c").network());
        assertEquals(List.of("before"), rack.held("c"));
    }

    @Test
    void twoGroupsBootedApartFormTwoUniversesAndHealingTakesOverTheLoser() {
        Sleds rack = new Sleds(4);
        rack.network.partition(List.of(Set.of("a", "b"), Set.of("c", "d")));
        rack.startMeshed(SETTLE, "a", "b", "c", "d");
        assertEquals(rack.nodes.get("a").network(), rack.nodes.get("b").network());
        assertEquals(rack.nodes.get("c").network(), rack.nodes.get("d").network());
        assertNotEquals(rack.nodes.get("a").network(), rack.nodes.get("c").network());
        rack.send("a", "left-1");
        rack.send("b", "left-2");
        rack.send("c", "right-1");
        rack.advance(SETTLE);
        NetworkId winner = rack.nodes.get("a").network();
        rack.network.healAll();
        rack.advance(Duration.ofSeconds(12));
        assertEquals(1, rack.universes());
        assertEquals(winner, rack.nodes.get("d").network(), "more history wins");
        for (String n : List.of("a", "b", "c", "d")) {
            assertEquals(List.of("left-1", "left-2"), rack.held(n), "the losing universe is dropped on " + n);
        }
    }

    @Test
    void aPartitionAfterBootKeepsOneUniverseAndHealsBySync() {
        Sleds rack = new Sleds(5);
        rack.startMeshed(SETTLE, "a", "b", "c", "d");
        NetworkId universe = rack.nodes.get("a").network();
        rack.network.partition(List.of(Set.of("a", "b"), Set.of("c", "d")));
        rack.send("a", "left");
        rack.send("d", "right");
        rack.advance(SETTLE);
        assertEquals(List.of("left"), rack.held("b"));
        assertEquals(List.of("right"), rack.held("c"));
        rack.network.healAll();
        rack.advance(Duration.ofSeconds(12));
        for (String n : List.of("a", "b", "c", "d")) {
            assertEquals(universe, rack.nodes.get(n).network());
            assertEquals(List.of("left", "right"), rack.held(n), n);
        }
    }

    @Test
    void sessionsFromSledsOutsideThePeerSetAreRefused() {
        Sleds rack = new Sleds(6);
        GossipNode a = rack.start("a");
        GossipNode b = rack.start("b");
        rack.start("c");
        a.setPeers(Map.of("b", "b"));
        b.setPeers(Map.of("a", "a"));
        rack.nodes.get("c").setPeers(Map.of("a", "a", "b", "b"));
        rack.advance(SETTLE);
        assertEquals(a.network(), b.network());
        assertNotEquals(a.network(), rack.nodes.get("c").network(), "a and b never talk to c");
        assertEquals(1, a.stats().connectedPeers());
    }

    @Test
    void removingAPeerClosesItsLinkAndAddingItBackReconnects() {
        Sleds rack = new Sleds(7);
        GossipNode a = rack.start("a");
        GossipNode b = rack.start("b");
        rack.fullMesh();
        rack.advance(SETTLE);
        a.setPeers(Map.of());
        b.setPeers(Map.of());
        rack.advance(SETTLE);
        assertEquals(0, a.stats().connectedPeers());
        rack.send("a", "alone");
        rack.advance(SETTLE);
        assertEquals(List.of(), rack.held("b"));
        rack.fullMesh();
        rack.advance(SETTLE);
        assertEquals(List.of("alone"), rack.held("b"));
    }

    @Test
    void entriesReportTheStartThenEachMigration() {
        Sleds rack = new Sleds(8);
        rack.start("a");
        rack.advance(Duration.ofMillis(1));
        rack.send("a", "weight");
        rack.start("b");
        rack.fullMesh();
        rack.advance(SETTLE);
        List<Entry> b = rack.entries.get("b");
        assertEquals(2, b.size());
        assertEquals(Entry.Cause.START, b.get(0).cause());
        assertEquals(Entry.Cause.MIGRATION, b.get(1).cause());
        assertEquals(2, b.get(1).sequence());
        assertEquals(rack.nodes.get("a").network(), b.get(1).network());
        assertEquals(1, rack.entries.get("a").size(), "the winner never moves");
    }

    @Test
    void aLoserReAnnouncesItselfInTheWinnersUniverse() {
        Sleds rack = new Sleds(9);
        for (String n : List.of("a", "b")) {
            GossipNode node = rack.start(n);
            // What the pipeline does at every entry: announce this sled in the universe it entered.
            node.entries().subscribe(e -> node.send(("hello from " + n + " #" + e.sequence())
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        rack.fullMesh();
        rack.advance(SETTLE);
        String winner = rack.entries.get("a").size() == 1 ? "a" : "b";
        String loser = winner.equals("a") ? "b" : "a";
        assertEquals(List.of("hello from " + loser + " #2", "hello from " + winner + " #1"), rack.held(winner));
        assertEquals(rack.held(winner), rack.held(loser));
    }
}
