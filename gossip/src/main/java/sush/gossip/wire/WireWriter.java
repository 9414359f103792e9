package sush.gossip.wire;

import java.util.Arrays;

/** Appends canonical encodings (big-endian integers, LEB128 varints) to a growable buffer. */
public final class WireWriter {
    private static final int INITIAL_CAPACITY_BYTES = 64;

    private byte[] buffer;
    private int size;

    public WireWriter() {
        this(INITIAL_CAPACITY_BYTES);
    }

    public WireWriter(int capacityBytes) {
        buffer = new byte[Math.max(capacityBytes, 8)];
    }

    public int size() {
        return size;
    }

    public WireWriter writeByte(int b) {
        ensure(1);
        buffer[size++] = (byte) b;
        return this;
    }

    public WireWriter writeBytes(byte[] bytes) {
        return writeBytes(bytes, 0, bytes.length);
    }

    public WireWriter writeBytes(byte[] bytes, int offset, int length) {
        ensure(length);
        System.arraycopy(bytes, offset, buffer, size, length);
        size += length;
        return this;
    }

    /** Unsigned LEB128; the shortest form, which is the only one {@link WireReader} accepts. */
    public WireWriter writeVarint(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("varint must be non-negative: " + value);
        }
        ensure(10);
        long v = value;
        while ((v & ~0x7FL) != 0) {
            buffer[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buffer[size++] = (byte) v;
        return this;
    }

    /** A varint length followed by the bytes. */
    public WireWriter writeLengthPrefixed(byte[] bytes) {
        writeVarint(bytes.length);
        return writeBytes(bytes);
    }

    public WireWriter writeInt(int value) {
        ensure(4);
        buffer[size++] = (byte) (value >>> 24);
        buffer[size++] = (byte) (value >>> 16);
        buffer[size++] = (byte) (value >>> 8);
        buffer[size++] = (byte) value;
        return this;
    }

    /** Overwrites 4 bytes at {@code position} (used to back-fill a frame length). */
    public void putInt(int position, int value) {
        buffer[position] = (byte) (value >>> 24);
        buffer[position + 1] = (byte) (value >>> 16);
        buffer[position + 2] = (byte) (value >>> 8);
        buffer[position + 3] = (byte) value;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buffer, size);
    }

    public void reset() {
        size = 0;
    }

    private void ensure(int extra) {
        if (size + extra > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + extra));
        }
    }
}
