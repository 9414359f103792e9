package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;
import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.wire.WireReader;

/** One session over one link: how it ends when the peer misbehaves, leaves or is abandoned. */
class SyncDriverTest {
    private static final byte[] SENDER = "me".getBytes(StandardCharsets.UTF_8);

    /** The result of a run, recorded as it happens (everything here is synchronous). */
    private static final class Result {
        final AtomicReference<Object> value = new AtomicReference<>();
        Disposable subscription;

        SyncException error() {
            return assertInstanceOf(SyncException.class, value.get(), () -> "an error, not " + value.get());
        }
    }

    private static Result run(SyncSession session, ScriptedLink link) {
        Result r = new Result();
        r.subscription = SyncDriver.run(session, link).subscribe(r.value::set, r.value::set);
        return r;
    }

    private static Replica seeded(long seed) {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(seed)));
        r.send(new byte[] {1});
        return r;
    }

    private static String abortText(byte[] body) throws Exception {
        assertEquals(Frames.ABORT, body[0] & 0xFF);
        return Frames.readAbort(new WireReader(body, 1, body.length - 1));
    }

    @Test
    void aPeerClosingInsideAFrameTruncatesTheSession() {
        ScriptedLink link = new ScriptedLink();
        Result r = run(new SyncSession(seeded(1), SyncSession.Intent.GOSSIP, SENDER), link);
        link.deliver(new byte[] {0, 0, 0, 40, (byte) Frames.PREAMBLE});
        assertNull(r.value.get(), "still waiting for the rest of the frame");
        link.complete();
        assertEquals(SyncException.Kind.TRUNCATED, r.error().kind());
        assertFalse(link.isOpen());
    }

    @Test
    void aPeerClosingBetweenFramesBreaksTheSession() {
        ScriptedLink link = new ScriptedLink();
        Replica replica = seeded(2);
        Result r = run(new SyncSession(replica, SyncSession.Intent.GOSSIP, SENDER), link);
        link.deliverFrames(Frames.preamble(replica.network(), SyncSession.Intent.GOSSIP, 0, SENDER));
        link.complete();
        assertEquals(SyncException.Kind.LINK_BROKEN, r.error().kind());
        assertFalse(link.isOpen());
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), link.sentTypes(), "no ABORT to a peer that left");
    }

    @Test
    void aSessionThatCannotStartAbortsToThePeerAndPoisonsTheLink() throws Exception {
        ScriptedLink link = new ScriptedLink();
        Replica replica = seeded(3);
        Result r = run(new SyncSession(replica, SyncSession.Intent.BOOTSTRAP, SENDER), link);
        assertEquals(SyncException.Kind.CLAIMANT_HAS_HISTORY, r.error().kind());
        List<byte[]> sent = link.sentFrames();
        assertEquals(1, sent.size());
        assertTrue(abortText(sent.get(0)).startsWith("CLAIMANT_HAS_HISTORY"), abortText(sent.get(0)));
        assertFalse(link.isOpen());
        assertEquals(1, replica.size());
    }

    @Test
    void aProtocolErrorIsReportedToThePeerBeforeTheLinkIsPoisoned() throws Exception {
        ScriptedLink link = new ScriptedLink();
        Result r = run(new SyncSession(seeded(4), SyncSession.Intent.GOSSIP, SENDER), link);
        link.deliverFrames(Frames.commit());
        assertEquals(SyncException.Kind.UNEXPECTED_FRAME, r.error().kind());
        List<byte[]> sent = link.sentFrames();
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER, Frames.ABORT), link.sentTypes());
        assertEquals(r.error().getMessage(), abortText(sent.get(2)));
        assertTrue(link.poisonReason().startsWith("UNEXPECTED_FRAME"), link.poisonReason());
    }

    @Test
    void aPeersAbortIsNotAnsweredWithAnother() {
        ScriptedLink link = new ScriptedLink();
        Result r = run(new SyncSession(seeded(5), SyncSession.Intent.GOSSIP, SENDER), link);
        link.deliverFrames(Frames.abort("full disk"));
        SyncException e = r.error();
        assertEquals(SyncException.Kind.PEER_ABORTED, e.kind());
        assertTrue(e.getMessage().endsWith("full disk"), e.getMessage());
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), link.sentTypes());
        assertFalse(link.isOpen());
    }

    @Test
    void cancellingAnUnfinishedRunPoisonsTheLink() {
        ScriptedLink link = new ScriptedLink();
        Result r = run(new SyncSession(seeded(6), SyncSession.Intent.GOSSIP, SENDER), link);
        assertTrue(link.isOpen());
        r.subscription.dispose();
        assertEquals("session cancelled", link.poisonReason());
        assertNull(r.value.get());
    }

    @Test
    void cancellingAFinishedRunLeavesTheLinkAlone() {
        ScriptedLink link = new ScriptedLink();
        Replica replica = seeded(7);
        Result r = run(new SyncSession(replica, SyncSession.Intent.GOSSIP, SENDER), link);
        link.deliverFrames(Frames.preamble(replica.network(), SyncSession.Intent.GOSSIP, 1, SENDER),
                Frames.frontier(replica.frontier()));
        SyncOutcome o = assertInstanceOf(SyncOutcome.class, r.value.get());
        assertEquals(SyncSession.Role.IN_SYNC, o.role());
        r.subscription.dispose();
        assertTrue(link.isOpen(), "a finished session leaves the link to its owner");
    }

    @Test
    void aFailureInsideTheSessionEndsTheRunWithATypedError() {
        ScriptedLink link = new ScriptedLink();
        Replica provider = seeded(8);
        SyncSession newcomer = new SyncSession(Replica.newcomer(), SyncSession.Intent.BOOTSTRAP, SENDER, null, () -> {
            throw new IllegalStateException("claim gate broke");
        });
        Result r = run(newcomer, link);
        link.deliverFrames(Frames.preamble(provider.network(), SyncSession.Intent.GOSSIP, 1, SENDER));
        SyncException e = r.error();
        assertEquals(SyncException.Kind.MALFORMED_FRAME, e.kind());
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertFalse(link.isOpen(), "the link is poisoned, not left half-way");
        assertEquals(Frames.ABORT, link.sentTypes().get(link.sentTypes().size() - 1));
    }

    @Test
    void framesSplitAcrossChunksRunTheSession() {
        Rack rack = Rack.of(2, 9);
        rack.send(0, "over the wire");
        Replica a = rack.replicas.get(0);
        Replica b = rack.replicas.get(1);
        ScriptedLink la = new ScriptedLink();
        ScriptedLink lb = new ScriptedLink();
        Result ra = run(new SyncSession(a, SyncSession.Intent.GOSSIP, SENDER), la);
        Result rb = run(new SyncSession(b, SyncSession.Intent.GOSSIP, SENDER), lb);
        // Hand each side's bytes to the other one byte at a time until both are done.
        int fromA = 0;
        int fromB = 0;
        while (ra.value.get() == null || rb.value.get() == null) {
            byte[] aSent = la.sentBytes();
            byte[] bSent = lb.sentBytes();
            if (fromA == aSent.length && fromB == bSent.length) {
                break;
            }
            if (fromA < aSent.length) {
                lb.deliver(Arrays.copyOfRange(aSent, fromA, ++fromA));
            }
            if (fromB < bSent.length) {
                la.deliver(Arrays.copyOfRange(bSent, fromB, ++fromB));
            }
        }
        assertEquals(1, assertInstanceOf(SyncOutcome.class, rb.value.get()).added());
        assertEquals(1, assertInstanceOf(SyncOutcome.class, ra.value.get()).sent());
        assertEquals(a.frontier(), b.frontier());
        assertEquals(Id.ONE, a.identity().join(b.identity()));
    }
}
