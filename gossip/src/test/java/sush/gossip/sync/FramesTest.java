package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Message;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;

/** The supply of a session cut into frames, and frames with bytes past their end (issue 21). */
class FramesTest {
    @Test
    void aLargeSupplyIsCutIntoFramesNearTheTargetThatCarryEveryMessageInOrder() throws Exception {
        List<Message> messages = new ArrayList<>();
        Version v = Version.ZERO;
        for (int i = 0; i < 300; i++) {
            v = v.tick(Id.ONE);
            byte[] payload = new byte[1000];
            payload[0] = (byte) i;
            messages.add(new Message(v, payload));
        }
        List<byte[]> frames = Frames.supply(messages);
        assertTrue(frames.size() >= 1 + 300 * 1000 / Frames.BATCH_TARGET_BYTES, frames.size() + " frames");
        List<Message> read = new ArrayList<>();
        for (int f = 0; f < frames.size() - 1; f++) {
            byte[] frame = frames.get(f);
            int length = ByteBuffer.wrap(frame).getInt();
            assertEquals(frame.length - 4, length);
            assertTrue(length <= Frames.BATCH_TARGET_BYTES + 2000, "frame " + f + " of " + length + " bytes");
            WireReader r = new WireReader(frame, 4, frame.length - 4);
            assertEquals(Frames.MESSAGES, r.readByte());
            long count = r.readVarint();
            for (long k = 0; k < count; k++) {
                Version mv = Version.fromBytes(r.readLengthPrefixed(Frames.MAX_VERSION_BYTES, "version"));
                read.add(new Message(mv, r.readLengthPrefixed(1 << 20, "payload")));
            }
            r.expectEnd("messages");
        }
        assertEquals(messages.size(), read.size());
        for (int i = 0; i < messages.size(); i++) {
            assertEquals(messages.get(i).version(), read.get(i).version());
            assertArrayEquals(messages.get(i).payload(), read.get(i).payload());
        }
        byte[] end = frames.get(frames.size() - 1);
        WireReader r = new WireReader(end, 4, end.length - 4);
        assertEquals(Frames.END, r.readByte());
        assertEquals(300, r.readVarint());
    }

    @Test
    void bytesPastTheEndOfAPreambleOrAnAbortAreMalformed() throws Exception {
        byte[] preamble = Frames.preamble(sush.gossip.set.NetworkId.random(sush.gossip.Entropy.seeded(1)),
                SyncSession.Intent.values()[0], 3, "sled".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        byte[] longer = java.util.Arrays.copyOf(preamble, preamble.length + 1);
        WireReader ok = new WireReader(preamble, 5, preamble.length - 5);
        assertEquals(3, Frames.readPreamble(ok).minTicks());
        assertThrows(MalformedException.class, () -> Frames.readPreamble(new WireReader(longer, 5, longer.length - 5)));
        byte[] abort = Frames.abort("because");
        assertEquals("because", Frames.readAbort(new WireReader(abort, 5, abort.length - 5)));
        byte[] abortLonger = java.util.Arrays.copyOf(abort, abort.length + 1);
        assertThrows(MalformedException.class, () -> Frames.readAbort(new WireReader(abortLonger, 5,
                abortLonger.length - 5)));
    }
}
