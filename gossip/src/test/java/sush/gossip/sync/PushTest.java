package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;

/** PUSH frames: what they carry, what a receiver makes of them. */
class PushTest {
    private static final byte[] SENDER = "a".getBytes(StandardCharsets.UTF_8);

    /** A push of one message replica {@code from} sends now. */
    private static Push pushOfOneSend(Replica from, String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        Replica.Sent s = from.sendOnBase(payload);
        return new Push(from.network(), SENDER, Targets.of(7), s.base(), s.version(), List.of(new Message(s.version(), payload)));
    }

    @Test
    void onlyANonEmptyBodyOfTypePushIsAPush() {
        assertFalse(Push.isPush(new byte[0]));
        assertTrue(Push.isPush(new byte[] {(byte) Frames.PUSH}));
        assertFalse(Push.isPush(new byte[] {(byte) Frames.CLAIM}));
    }

    @Test
    void aPushDecodesToWhatWasEncodedAndNotOneByteMore() throws Exception {
        Rack rack = Rack.of(2, 50);
        Push p = pushOfOneSend(rack.replicas.get(0), "hello");
        byte[] body = ScriptedLink.body(p.encode());
        Push back = Push.decode(body);
        assertEquals(p.network(), back.network());
        assertArrayEquals(SENDER, back.sender());
        assertEquals(Targets.of(7), back.targets());
        assertEquals(p.base(), back.base());
        assertEquals(p.frontier(), back.frontier());
        assertEquals(1, back.messages().size());
        assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), back.messages().get(0).payload());
        SyncException e = assertThrows(SyncException.class, () -> Push.decode(Arrays.copyOf(body, body.length + 1)));
        assertEquals(SyncException.Kind.MALFORMED_FRAME, e.kind());
    }

    @Test
    void aPushThatRepeatsAMessageOrCarriesOneAtItsBaseIsRefused() throws Exception {
        Rack rack = Rack.of(2, 52);
        Replica from = rack.replicas.get(0);
        byte[] first = "one".getBytes(StandardCharsets.UTF_8);
        Replica.Sent a = from.sendOnBase(first);
        byte[] second = "two".getBytes(StandardCharsets.UTF_8);
        Replica.Sent b = from.sendOnBase(second);
        Version frontier = a.version().join(b.version());
        Push twice = new Push(from.network(), SENDER, Targets.of(), a.base(), frontier,
                List.of(new Message(a.version(), first), new Message(b.version(), second),
                        new Message(a.version(), first)));
        SyncException repeat = assertThrows(SyncException.class, () -> Push.decode(ScriptedLink.body(twice.encode())));
        assertEquals(SyncException.Kind.INCONSISTENT_SUPPLY, repeat.kind());
        Push atBase = new Push(from.network(), SENDER, Targets.of(), b.version(), b.version(),
                List.of(new Message(b.version(), second)));
        SyncException below = assertThrows(SyncException.class, () -> Push.decode(ScriptedLink.body(atBase.encode())));
        assertEquals(SyncException.Kind.INCONSISTENT_SUPPLY, below.kind());
        Push fine = new Push(from.network(), SENDER, Targets.of(3, 1, 3), a.base(), frontier,
                List.of(new Message(a.version(), first), new Message(b.version(), second)));
        Push back = Push.decode(ScriptedLink.body(fine.encode()));
        assertEquals(2, back.messages().size());
        assertEquals(Targets.of(1, 3), back.targets());
    }

    @Test
    void aReceiverHoldingTheBaseAddsTheMessages() throws Exception {
        Rack rack = Rack.of(2, 51);
        Push p = pushOfOneSend(rack.replicas.get(0), "x");
        Replica to = rack.replicas.get(1);
        assertEquals(Push.Result.APPLIED, p.applyTo(to));
        assertTrue(to.contains(p.frontier()));
        assertEquals(p.frontier(), to.frontier());
        assertEquals(Push.Result.APPLIED, p.applyTo(to), "a repeated push adds nothing and is no error");
        assertEquals(1, to.size());
    }

    @Test
    void aReceiverMissingPartOfTheBaseReportsAGapAndChangesNothing() throws Exception {
        Rack rack = Rack.of(2, 52);
        rack.replicas.get(0).send(new byte[] {1});
        Push p = pushOfOneSend(rack.replicas.get(0), "y");
        Replica to = rack.replicas.get(1);
        Version before = to.frontier();
        assertEquals(Push.Result.GAP, p.applyTo(to));
        assertEquals(before, to.frontier());
        assertEquals(0, to.size());
    }

    @Test
    void aPushFromAnotherUniverseIsForeign() throws Exception {
        Push p = pushOfOneSend(Replica.seed(NetworkId.random(Entropy.seeded(53))), "z");
        Replica other = Replica.seed(NetworkId.random(Entropy.seeded(54)));
        assertEquals(Push.Result.FOREIGN, p.applyTo(other));
        assertEquals(0, other.size());
    }

    @Test
    void aBootstrappingReplicaIgnoresEvenAPushInItsAllZeroNetwork() throws Exception {
        Version v = Version.ZERO.tick(Id.ONE);
        Push forged = new Push(NetworkId.BOOTSTRAPPING, SENDER, Targets.of(), Version.ZERO, v,
                List.of(new Message(v, new byte[] {1})));
        Replica newcomer = Replica.newcomer();
        assertEquals(Push.Result.FOREIGN, Push.decode(ScriptedLink.body(forged.encode())).applyTo(newcomer));
        assertEquals(0, newcomer.size());
        assertTrue(newcomer.frontier().isZero(), "it can still bootstrap");
    }
}
