package sush.gossip.set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;

/**
 * The replica at its edges (issue 21): the set's bound exactly, another universe, batches
 * held in causal order whatever order they came in, and subscribers told of an adopted set.
 */
class ReplicaEdgesTest {
    private static final NetworkId U = NetworkId.random(Entropy.seeded(1));
    private static final NetworkId OTHER = NetworkId.random(Entropy.seeded(2));

    private static List<Message> chainOf(int n) {
        List<Message> out = new ArrayList<>();
        Version v = Version.ZERO;
        for (int i = 0; i < n; i++) {
            v = v.tick(Id.ONE);
            out.add(new Message(v, new byte[] {(byte) i}));
        }
        return out;
    }

    @Test
    void aBatchOutOfOrderIsHeldAndDeliveredInCausalOrder() {
        List<Message> ordered = chainOf(4);
        List<Message> shuffled = new ArrayList<>(ordered);
        Collections.reverse(shuffled);
        Replica r = Replica.seed(U);
        assertEquals(4, r.commit(U, ordered.get(3).version(), shuffled));
        List<Delivery> got = r.readFrom(0, 10);
        for (int i = 0; i < 4; i++) {
            assertEquals(ordered.get(i).version(), got.get(i).version(), "position " + i);
        }
        assertTrue(r.contains(ordered.get(2).version()));
        assertFalse(r.contains(ordered.get(3).version().tick(Id.ONE)));
        // Adopted the same way.
        Replica n = Replica.newcomer();
        List<Long> told = new ArrayList<>();
        n.deliveries(0).subscribe(d -> told.add(d.checkpoint()));
        n.adopt(new Replica.Grant(U, Id.ONE, ordered.get(3).version(), shuffled));
        assertEquals(ordered.get(0).version(), n.readFrom(0, 1).get(0).version());
        assertEquals(List.of(1L, 2L, 3L, 4L), told, "subscribers are told of the adopted set");
    }

    @Test
    void anotherUniverseIsRefused() {
        Replica r = Replica.seed(U);
        ReplicaException e = assertThrows(ReplicaException.class, () -> r.commit(OTHER, Version.ZERO, chainOf(1)));
        assertEquals(ReplicaException.Kind.UNIVERSE_CHANGED, e.kind());
        assertEquals(0, r.size());
        assertEquals(ReplicaException.Kind.UNIVERSE_CHANGED, assertThrows(ReplicaException.class,
                () -> r.missingFor(new Replica.View(OTHER, Version.ZERO, 0), Version.ZERO)).kind());
        assertNotEquals(U.hashCode(), OTHER.hashCode());
    }

    @Test
    void theSetHoldsExactlyItsBoundAndRefusesOneMore() {
        // One message repeated stands for a full batch: the bound is checked before anything else.
        Message m = chainOf(1).get(0);
        Replica full = Replica.seed(U);
        ReplicaException over = assertThrows(ReplicaException.class,
                () -> full.commit(U, m.version(), Collections.nCopies(Replica.MAX_MESSAGES + 1, m)));
        assertEquals(ReplicaException.Kind.SET_FULL, over.kind());
        assertEquals(0, full.size(), "nothing of a refused batch is held");
        Replica n = Replica.newcomer();
        assertEquals(ReplicaException.Kind.SET_FULL, assertThrows(ReplicaException.class,
                () -> n.adopt(new Replica.Grant(U, Id.ONE, m.version(), Collections.nCopies(Replica.MAX_MESSAGES + 1,
                        m)))).kind());
        // The bound counts messages held: a replica that sent exactly that many refuses one more
        // (scaled down: the rule is the same at 2^20).
        int bound = 1000;
        Replica sender = Replica.seed(U, bound);
        byte[] payload = {1};
        for (int i = 0; i < bound; i++) {
            sender.send(payload);
        }
        assertEquals(bound, sender.size());
        assertEquals(ReplicaException.Kind.SET_FULL, assertThrows(ReplicaException.class,
                () -> sender.send(payload)).kind(), "a full set refuses sends");
        // Forgetting makes room: the bound is on what is held, not on what ever was.
        Version first = sender.readFrom(0, 1).get(0).version();
        assertEquals(1, sender.forget(List.of(first)));
        sender.send(payload);
        assertEquals(bound, sender.size());
        assertEquals(ReplicaException.Kind.SET_FULL, assertThrows(ReplicaException.class,
                () -> sender.send(payload)).kind(), "full again");
    }
}
