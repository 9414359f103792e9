package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Version;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.Message;
import sush.gossip.set.Replica;

/**
 * Sync with a replica that forgot messages (issue 39): the END frame names the supplier's
 * forgotten ceiling only when it has one (the bytes of a supplier that forgot nothing are the
 * ones it always sent), a peer and a newcomer take a forgetful supply and its ceiling, and a
 * gap that the ceiling does not cover is still refused.
 */
class ForgetfulSyncTest {
    private static final byte[] PEER = "peer".getBytes(StandardCharsets.UTF_8);

    private static byte[] body(byte[] frame) {
        return ScriptedLink.body(frame);
    }

    @Test
    void anEndWithoutForgettingIsTheEndItAlwaysWas() {
        List<byte[]> plain = Frames.supply(List.of());
        assertEquals(1, plain.size());
        // length 2 | END | total 0: pinned.
        assertEquals("000000020400", HexFormat.of().formatHex(plain.get(0)));
        assertArrayEquals(plain.get(0), Frames.supply(List.of(), Version.ZERO).get(0));
        Rack rack = Rack.of(1, 90);
        Version v = rack.send(0, "x");
        byte[] end = Frames.supply(List.of(), v).get(0);
        assertEquals(2 + 4 + 1 + v.toBytes().length, end.length, "END names the ceiling after the total");
    }

    @Test
    void aPeerAndANewcomerTakeAForgetfulSupplyAndItsCeiling() {
        Rack rack = Rack.of(2, 91);
        Version kept = rack.send(0, "kept");
        Version gone = rack.send(0, "gone");
        Version last = rack.send(0, "last");
        Replica a = rack.replicas.get(0);
        a.forget(List.of(gone));
        // Replica 1 never saw "gone" (the rule would not allow this; the wire must still hold).
        assertNull(rack.sync(1, 0).error());
        Replica b = rack.replicas.get(1);
        assertEquals(a.frontier(), b.frontier());
        assertTrue(b.contains(kept) && b.contains(last));
        assertFalse(b.contains(gone));
        assertEquals(gone, b.forgottenCeiling());
        Replica n = Replica.newcomer();
        Rack.Outcomes o = Rack.sync(b, SyncSession.Intent.GOSSIP, n, SyncSession.Intent.BOOTSTRAP, MemoryLink.pair());
        assertNull(o.error());
        assertEquals(a.frontier(), n.frontier());
        assertEquals(2, n.size());
        assertEquals(gone, n.forgottenCeiling(), "a peer's ceiling is passed on");
    }

    @Test
    void aGapTheCeilingDoesNotCoverIsRefused() throws Exception {
        Rack rack = Rack.of(2, 92);
        Version first = rack.send(0, "first");
        Version second = rack.send(0, "second");
        Replica liar = rack.replicas.get(0);
        Replica victim = rack.replicas.get(1);
        SyncSession s = new SyncSession(victim, SyncSession.Intent.GOSSIP, "v".getBytes(StandardCharsets.UTF_8));
        s.start();
        s.onFrame(body(Frames.preamble(liar.network(), SyncSession.Intent.GOSSIP, 1, PEER)));
        s.onFrame(body(Frames.frontier(liar.frontier())));
        // Neither message sent, and a ceiling that covers only the first: "second" is a gap.
        byte[] end = body(Frames.supply(List.of(), first).get(0));
        SyncException e = assertThrows(SyncException.class, () -> s.onFrame(end));
        assertEquals(SyncException.Kind.INCONSISTENT_SUPPLY, e.kind());
        assertEquals(0, victim.size());
        // The same supply whose ceiling covers both is taken (what a supplier that forgot both sends).
        SyncSession t = new SyncSession(victim, SyncSession.Intent.GOSSIP, "v".getBytes(StandardCharsets.UTF_8));
        t.start();
        t.onFrame(body(Frames.preamble(liar.network(), SyncSession.Intent.GOSSIP, 1, PEER)));
        t.onFrame(body(Frames.frontier(liar.frontier())));
        t.onFrame(body(Frames.supply(List.of(new Message(first, new byte[] {1})), second).get(0)));
        t.onFrame(body(Frames.supply(List.of(new Message(first, new byte[] {1})), second).get(1)));
        assertEquals(liar.frontier(), victim.frontier());
        assertEquals(1, victim.size());
    }
}
