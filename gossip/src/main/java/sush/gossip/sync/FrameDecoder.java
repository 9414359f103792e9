package sush.gossip.sync;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Cuts a byte stream into frames: a 4-byte big-endian body length, then the body. A declared
 * length over the bound fails before anything is buffered, so a hostile peer cannot make us
 * allocate more than one bounded frame.
 */
final class FrameDecoder {
    private static final int HEADER_BYTES = 4;

    private int maxFrameBytes;
    private byte[] buffer = new byte[256];
    private int filled;

    FrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    /** Adds a chunk and returns every frame body it completes. */
    List<byte[]> feed(byte[] chunk) throws SyncException {
        List<byte[]> frames = new ArrayList<>(2);
        feed(chunk, frames::add);
        return frames;
    }

    /** Receives frames one at a time; it may change the bound before the next frame is read. */
    @FunctionalInterface
    interface Sink {
        /** False to stop reading this chunk (the link is closing). */
        boolean accept(byte[] frame) throws SyncException;
    }

    /** The bound on frame bodies from the next frame header on. */
    void bound(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    /** Adds a chunk and hands each frame it completes to {@code sink}, in order. */
    void feed(byte[] chunk, Sink sink) throws SyncException {
        int offset = 0;
        while (offset < chunk.length) {
            int take = Math.min(chunk.length - offset, wanted() - filled);
            ensure(filled + take);
            System.arraycopy(chunk, offset, buffer, filled, take);
            filled += take;
            offset += take;
            if (filled == HEADER_BYTES) {
                checkLength(bodyLength());
            }
            if (filled >= HEADER_BYTES && filled == HEADER_BYTES + bodyLength()) {
                byte[] frame = Arrays.copyOfRange(buffer, HEADER_BYTES, filled);
                filled = 0;
                if (buffer.length > 64 * 1024) {
                    buffer = new byte[256]; // a large frame's buffer is not kept for the link's life
                }
                if (!sink.accept(frame)) {
                    return;
                }
            }
        }
    }

    /** Whether a frame was cut off: the stream must not end here. */
    boolean hasPartialFrame() {
        return filled > 0;
    }

    private int wanted() {
        return filled < HEADER_BYTES ? HEADER_BYTES : HEADER_BYTES + bodyLength();
    }

    private int bodyLength() {
        return ((buffer[0] & 0xFF) << 24) | ((buffer[1] & 0xFF) << 16) | ((buffer[2] & 0xFF) << 8) | (buffer[3] & 0xFF);
    }

    private void checkLength(int length) throws SyncException {
        if (length < 0 || length > maxFrameBytes) {
            throw new SyncException(SyncException.Kind.FRAME_TOO_LARGE,
                    "declared frame of " + Integer.toUnsignedString(length) + " bytes, bound " + maxFrameBytes);
        }
        if (length == 0) {
            throw new SyncException(SyncException.Kind.MALFORMED_FRAME, "empty frame has no type");
        }
    }

    private void ensure(int size) {
        if (size > buffer.length) {
            // Once: the whole declared frame (its length was checked against the bound).
            int frame = filled >= HEADER_BYTES ? HEADER_BYTES + bodyLength() : HEADER_BYTES;
            buffer = Arrays.copyOf(buffer, Math.max(size, frame));
        }
    }
}
