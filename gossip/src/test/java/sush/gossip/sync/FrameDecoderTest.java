package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Frames cut from a byte stream whatever its chunks, and the bounds a peer cannot pass. */
class FrameDecoderTest {
    private static byte[] frame(int bodyLength, int seed) {
        byte[] f = new byte[4 + bodyLength];
        ByteBuffer.wrap(f).putInt(bodyLength);
        for (int i = 4; i < f.length; i++) {
            f[i] = (byte) (seed + i * 31);
        }
        return f;
    }

    @Test
    void framesComeOutWholeAndInOrderWhateverTheChunks() throws Exception {
        int[] lengths = {1, 2, 3, 255, 256, 300, 5000, 1, 70_000, 7};
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<byte[]> bodies = new ArrayList<>();
        for (int k = 0; k < lengths.length; k++) {
            byte[] f = frame(lengths[k], k);
            stream.writeBytes(f);
            bodies.add(Arrays.copyOfRange(f, 4, f.length));
        }
        byte[] all = stream.toByteArray();
        for (int chunk : new int[] {1, 2, 3, 5, 7, 64, 257, 4096, all.length}) {
            FrameDecoder d = new FrameDecoder(Frames.MAX_FRAME_BYTES);
            List<byte[]> out = new ArrayList<>();
            for (int at = 0; at < all.length; at += chunk) {
                out.addAll(d.feed(Arrays.copyOfRange(all, at, Math.min(all.length, at + chunk))));
            }
            assertEquals(bodies.size(), out.size(), "chunks of " + chunk);
            for (int k = 0; k < bodies.size(); k++) {
                assertArrayEquals(bodies.get(k), out.get(k), "chunks of " + chunk + ", frame " + k);
            }
            assertFalse(d.hasPartialFrame());
        }
    }

    @Test
    void aChunkEndingInsideTheNextHeaderKeepsThatHeaderForLater() throws Exception {
        FrameDecoder d = new FrameDecoder(100);
        byte[] first = frame(3, 1);
        byte[] second = frame(2, 2);
        byte[] chunk = Arrays.copyOf(first, first.length + 2);
        System.arraycopy(second, 0, chunk, first.length, 2);
        List<byte[]> out = d.feed(chunk);
        assertEquals(1, out.size());
        assertArrayEquals(Arrays.copyOfRange(first, 4, 7), out.get(0));
        assertTrue(d.hasPartialFrame());
        List<byte[]> rest = d.feed(Arrays.copyOfRange(second, 2, second.length));
        assertEquals(1, rest.size());
        assertArrayEquals(Arrays.copyOfRange(second, 4, 6), rest.get(0));
    }

    @Test
    void aFrameAtTheBoundIsReadAndOneByteMoreIsRefusedFromItsHeader() throws Exception {
        assertEquals(100, new FrameDecoder(100).feed(frame(100, 3)).get(0).length);
        FrameDecoder d = new FrameDecoder(100);
        SyncException e = assertThrows(SyncException.class, () -> d.feed(Arrays.copyOf(frame(101, 3), 4)));
        assertEquals(SyncException.Kind.FRAME_TOO_LARGE, e.kind());
    }

    @Test
    void everyByteOfTheLengthCounts() throws Exception {
        // A length whose only non-zero byte is the first is 16 MiB and more: over any bound.
        for (byte[] header : new byte[][] {{1, 0, 0, 5}, {0x40, 0, 0, 1}, {(byte) 0x80, 0, 0, 1}, {0, 0x10, 0, 1}}) {
            FrameDecoder d = new FrameDecoder(Frames.MAX_FRAME_BYTES);
            SyncException e = assertThrows(SyncException.class, () -> d.feed(Arrays.copyOf(header, 9)));
            assertEquals(SyncException.Kind.FRAME_TOO_LARGE, e.kind(), Arrays.toString(header));
        }
        FrameDecoder d = new FrameDecoder(Frames.MAX_FRAME_BYTES);
        byte[] justUnder = frame(Frames.MAX_FRAME_BYTES, 0);
        assertEquals(List.of(Frames.MAX_FRAME_BYTES),
                d.feed(justUnder).stream().map(b -> b.length).toList());
        SyncException empty = assertThrows(SyncException.class, () -> new FrameDecoder(10).feed(new byte[4]));
        assertEquals(SyncException.Kind.MALFORMED_FRAME, empty.kind());
    }

    @Test
    void aPartialFrameIsReportedUntilItsLastByte() throws Exception {
        FrameDecoder d = new FrameDecoder(100);
        assertFalse(d.hasPartialFrame(), "nothing read yet");
        byte[] f = frame(3, 9);
        d.feed(Arrays.copyOfRange(f, 0, 2));
        assertTrue(d.hasPartialFrame(), "half a header");
        d.feed(Arrays.copyOfRange(f, 2, 4));
        assertTrue(d.hasPartialFrame(), "a whole header");
        d.feed(Arrays.copyOfRange(f, 4, 6));
        assertTrue(d.hasPartialFrame(), "part of the body");
        assertEquals(1, d.feed(Arrays.copyOfRange(f, 6, 7)).size());
        assertFalse(d.hasPartialFrame(), "the frame is complete");
    }

    @Test
    void aSinkThatStopsLeavesTheRestOfTheChunkUnread() throws Exception {
        FrameDecoder d = new FrameDecoder(100);
        byte[] chunk = new byte[14];
        System.arraycopy(frame(3, 1), 0, chunk, 0, 7);
        System.arraycopy(frame(3, 2), 0, chunk, 7, 7);
        List<byte[]> seen = new ArrayList<>();
        d.feed(chunk, f -> {
            seen.add(f);
            return false;
        });
        assertEquals(1, seen.size());
    }

    @Test
    void aLargeFrameIsBufferedWithOneAllocationOfItsDeclaredSize() throws Exception {
        FrameDecoder d = new FrameDecoder(Frames.MAX_FRAME_BYTES);
        byte[] f = frame(1000, 4);
        d.feed(Arrays.copyOfRange(f, 0, 4));
        d.feed(Arrays.copyOfRange(f, 4, 304));
        assertEquals(1004, buffer(d).length, "grown once to the whole frame, not byte by byte");
        byte[] grown = buffer(d);
        d.feed(Arrays.copyOfRange(f, 304, 700));
        assertSame(grown, buffer(d));
    }

    @Test
    void aSmallBufferIsKeptAndALargeOneDroppedAfterItsFrame() throws Exception {
        FrameDecoder d = new FrameDecoder(Frames.MAX_FRAME_BYTES);
        byte[] small = buffer(d);
        d.feed(frame(100, 1));
        assertSame(small, buffer(d), "a small frame reuses the buffer");
        d.feed(frame(100_000, 2));
        assertTrue(buffer(d).length <= 64 * 1024, "a large frame's buffer is not kept: " + buffer(d).length);
    }

    private static byte[] buffer(FrameDecoder d) throws ReflectiveOperationException {
        Field f = FrameDecoder.class.getDeclaredField("buffer");
        f.setAccessible(true);
        return (byte[]) f.get(d);
    }
}
