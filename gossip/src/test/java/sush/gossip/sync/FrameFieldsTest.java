package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;
import sush.gossip.wire.WireWriter;

/** Fields of the sync frames checked exactly at their bounds, and how a supply is batched. */
class FrameFieldsTest {
    private static final NetworkId NET = NetworkId.random(Entropy.seeded(40));

    private static byte[] preambleWithIntent(int intent) {
        WireWriter w = new WireWriter();
        w.writeBytes(Frames.MAGIC).writeByte(Frames.PROTOCOL_VERSION).writeBytes(NET.toBytes());
        w.writeByte(intent).writeVarint(0).writeLengthPrefixed("s".getBytes(StandardCharsets.UTF_8));
        return w.toByteArray();
    }

    @Test
    void anIntentPastTheLastOneIsMalformed() throws Exception {
        assertEquals(SyncSession.Intent.BOOTSTRAP,
                Frames.readPreamble(new WireReader(preambleWithIntent(SyncSession.Intent.values().length - 1))).intent());
        int past = SyncSession.Intent.values().length;
        MalformedException e = assertThrows(MalformedException.class,
                () -> Frames.readPreamble(new WireReader(preambleWithIntent(past))));
        assertEquals(MalformedException.Reason.OUT_OF_RANGE, e.reason());
        byte[] body = new byte[1 + preambleWithIntent(past).length];
        body[0] = (byte) Frames.PREAMBLE;
        System.arraycopy(preambleWithIntent(past), 0, body, 1, body.length - 1);
        assertTrue(Frames.preambleSender(body).isEmpty(), "no sender from a malformed preamble");
    }

    /** A version whose deepest leaf is {@code depth} levels down: one tick by a share that deep. */
    static Version versionOfDepth(int depth) {
        Id id = Id.ONE;
        for (int d = 0; d < depth; d++) {
            id = id.fork()[0];
        }
        return Version.ZERO.tick(id);
    }

    private static WireReader lengthPrefixed(Version v) {
        return new WireReader(new WireWriter().writeLengthPrefixed(v.toBytes()).toByteArray());
    }

    @Test
    void aMessageVersionAtTheDepthBoundIsReadAndOneLevelDeeperIsRefused() throws Exception {
        Version atBound = versionOfDepth(Frames.MAX_MESSAGE_DEPTH);
        assertEquals(Frames.MAX_MESSAGE_DEPTH, atBound.depth());
        assertEquals(atBound, Frames.readMessageVersion(lengthPrefixed(atBound)));
        Version deeper = versionOfDepth(Frames.MAX_MESSAGE_DEPTH + 1);
        assertEquals(Frames.MAX_MESSAGE_DEPTH + 1, deeper.depth());
        MalformedException e = assertThrows(MalformedException.class,
                () -> Frames.readMessageVersion(lengthPrefixed(deeper)));
        assertEquals(MalformedException.Reason.TOO_LARGE, e.reason());
        assertEquals(deeper, Frames.readVersion(lengthPrefixed(deeper)), "only message versions are bounded");
    }

    @Test
    void aBatchEndsWithTheMessageThatReachesTheTarget() throws Exception {
        // Each message is estimated at its version, its payload and 8 bytes of framing: 1 KiB here.
        int each = 1024;
        List<Message> messages = new ArrayList<>();
        Version v = Version.ZERO;
        for (int i = 0; i < 200; i++) {
            v = v.tick(Id.ONE);
            messages.add(new Message(v, new byte[each - 8 - v.encodedSize()]));
        }
        List<byte[]> frames = Frames.supply(messages);
        List<Long> counts = new ArrayList<>();
        long carried = 0;
        for (byte[] f : frames.subList(0, frames.size() - 1)) {
            WireReader r = new WireReader(f, 4, f.length - 4);
            assertEquals(Frames.MESSAGES, r.readByte());
            long count = r.readVarint();
            counts.add(count);
            for (long k = 0; k < count; k++) {
                assertEquals(messages.get((int) carried++).version(), Frames.readVersion(r));
                r.readLengthPrefixed(1 << 20, "payload");
            }
            r.expectEnd("messages");
        }
        int perFrame = Frames.BATCH_TARGET_BYTES / each;
        assertEquals(List.of((long) perFrame, (long) perFrame, (long) perFrame, 200L - 3 * perFrame), counts);
        byte[] end = frames.get(frames.size() - 1);
        WireReader r = new WireReader(end, 4, end.length - 4);
        assertEquals(Frames.END, r.readByte());
        assertEquals(200, r.readVarint());
    }

    @Test
    void aMessageOverTheTargetTravelsAloneAndNoMessagesMeansOnlyEnd() throws Exception {
        Version v1 = Version.ZERO.tick(Id.ONE);
        Version v2 = v1.tick(Id.ONE);
        List<byte[]> frames = Frames.supply(List.of(new Message(v1, new byte[Frames.BATCH_TARGET_BYTES]),
                new Message(v2, new byte[1])));
        assertEquals(3, frames.size());
        assertEquals(List.of(Frames.END), ScriptedLink.cut(Frames.supply(List.of()).get(0)).stream()
                .map(b -> b[0] & 0xFF).toList());
    }

    @Test
    void aUniverseDoesNotBeatItselfAndTheContestIsOrdered() {
        NetworkId low = NetworkId.random(Entropy.seeded(41));
        NetworkId high = NetworkId.random(Entropy.seeded(42));
        if (low.compareTo(high) > 0) {
            NetworkId t = low;
            low = high;
            high = t;
        }
        assertFalse(NetworkMismatchException.beats(5, low, 5, low));
        assertTrue(NetworkMismatchException.beats(5, low, 5, high));
        assertFalse(NetworkMismatchException.beats(5, high, 5, low));
        assertTrue(NetworkMismatchException.beats(6, high, 5, low), "more ticks win over the lower id");
        assertFalse(NetworkMismatchException.beats(5, low, 6, high));
    }
}
