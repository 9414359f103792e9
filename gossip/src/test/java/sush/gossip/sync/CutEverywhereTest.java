package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Version;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.Replica;

/** A session cut at any byte leaves each replica either as it was or holding the union. */
class CutEverywhereTest {
    @Test
    void cutAtEveryByteLeavesEachSideUnchangedOrComplete() {
        long fullBytes = sessionBytes(Long.MAX_VALUE);
        int cuts = 0;
        for (long cut = 0; cut < fullBytes; cut++) {
            Rack rack = setUp();
            Version a0 = rack.replicas.get(0).frontier();
            Version b0 = rack.replicas.get(1).frontier();
            Version union = a0.join(b0);
            MemoryLink[] links = MemoryLink.pair();
            links[0].cutAfter(cut);
            Rack.Outcomes o = Rack.sync(rack.replicas.get(0), SyncSession.Intent.GOSSIP, rack.replicas.get(1),
                    SyncSession.Intent.GOSSIP, links);
            assertNotNull(o.error(), "cut at " + cut + " of " + fullBytes + " must fail the session");
            cuts++;
            for (int k = 0; k < 2; k++) {
                Replica r = rack.replicas.get(k);
                Version before = k == 0 ? a0 : b0;
                assertTrue(r.frontier().equals(before) || r.frontier().equals(union),
                        "cut at " + cut + ": replica " + k + " is unchanged or complete");
                SyncPropertiesTest.assertHoldsEverythingBelowItsFrontier(rack, r, cut);
            }
        }
        assertTrue(cuts > 100, "the session is long enough to cut in many places: " + cuts);
        assertNull(setUp().sync(0, 1).error());
    }

    private static long sessionBytes(long cut) {
        Rack rack = setUp();
        MemoryLink[] links = MemoryLink.pair();
        links[0].cutAfter(cut);
        Rack.Outcomes o = Rack.sync(rack.replicas.get(0), SyncSession.Intent.GOSSIP, rack.replicas.get(1),
                SyncSession.Intent.GOSSIP, links);
        assertNull(o.error());
        assertEquals(rack.replicas.get(0).frontier(), rack.replicas.get(1).frontier());
        return links[0].bytesSent() + links[1].bytesSent();
    }

    private static Rack setUp() {
        Rack rack = Rack.of(2, 99);
        rack.send(0, "a1");
        rack.send(0, "a2");
        rack.send(1, "b1");
        return rack;
    }
}
