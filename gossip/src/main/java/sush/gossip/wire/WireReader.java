package sush.gossip.wire;

import static sush.gossip.wire.MalformedException.Reason.NON_CANONICAL;
import static sush.gossip.wire.MalformedException.Reason.OUT_OF_RANGE;
import static sush.gossip.wire.MalformedException.Reason.TOO_LARGE;
import static sush.gossip.wire.MalformedException.Reason.TRAILING_BYTES;
import static sush.gossip.wire.MalformedException.Reason.TRUNCATED;

import java.util.Arrays;

/** Reads what {@link WireWriter} writes, refusing every non-canonical or truncated form. */
public final class WireReader {
    private static final int MAX_VARINT_BYTES = 10;

    private final byte[] bytes;
    private final int limit;
    private int position;

    public WireReader(byte[] bytes) {
        this(bytes, 0, bytes.length);
    }

    public WireReader(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.position = offset;
        this.limit = offset + length;
    }

    public int remaining() {
        return limit - position;
    }

    public int position() {
        return position;
    }

    public int readByte() throws MalformedException {
        require(1);
        return bytes[position++] & 0xFF;
    }

    public byte[] readBytes(int length) throws MalformedException {
        if (length < 0) {
            throw new MalformedException(OUT_OF_RANGE, "negative length " + length);
        }
        require(length);
        byte[] out = Arrays.copyOfRange(bytes, position, position + length);
        position += length;
        return out;
    }

    /** Moves past {@code length} bytes the caller has read in place. */
    public void skip(int length) throws MalformedException {
        if (length < 0) {
            throw new MalformedException(OUT_OF_RANGE, "negative length " + length);
        }
        require(length);
        position += length;
    }

    /** Unsigned LEB128 in its shortest form, at most 63 bits. */
    public long readVarint() throws MalformedException {
        // One or two bytes (counter deltas, lengths) are most varints: read them in place.
        if (position < limit && bytes[position] >= 0) {
            return bytes[position++];
        }
        if (position + 1 < limit && bytes[position + 1] > 0) {
            long v = (bytes[position] & 0x7F) | ((long) bytes[position + 1] << 7);
            position += 2;
            return v;
        }
        long result = 0;
        for (int i = 0; i < MAX_VARINT_BYTES; i++) {
            int b = readByte();
            long chunk = b & 0x7F;
            if (i == 9 && chunk > 0) {
                throw new MalformedException(OUT_OF_RANGE, "varint over 63 bits");
            }
            result |= chunk << (7 * i);
            if ((b & 0x80) == 0) {
                if (b == 0 && i > 0) {
                    throw new MalformedException(NON_CANONICAL, "varint with a redundant zero byte");
                }
                return result;
            }
        }
        throw new MalformedException(OUT_OF_RANGE, "varint longer than " + MAX_VARINT_BYTES + " bytes");
    }

    /** A varint that must lie in {@code [0, max]}. */
    public int readVarintAtMost(int max, String what) throws MalformedException {
        long v = readVarint();
        if (v > max) {
            throw new MalformedException(TOO_LARGE, what + " " + v + " over the bound " + max);
        }
        return (int) v;
    }

    /** A varint length (at most {@code maxLength}) followed by that many bytes. */
    public byte[] readLengthPrefixed(int maxLength, String what) throws MalformedException {
        long length = readVarint();
        if (length > maxLength) {
            // The message is built only here: this runs for every field of every frame.
            throw new MalformedException(TOO_LARGE, what + " length " + length + " over the bound " + maxLength);
        }
        return readBytes((int) length);
    }

    public int readInt() throws MalformedException {
        require(4);
        int v = ((bytes[position] & 0xFF) << 24) | ((bytes[position + 1] & 0xFF) << 16)
                | ((bytes[position + 2] & 0xFF) << 8) | (bytes[position + 3] & 0xFF);
        position += 4;
        return v;
    }

    /** Refuses trailing bytes: every decoder of a whole value ends with this. */
    public void expectEnd(String what) throws MalformedException {
        if (position != limit) {
            throw new MalformedException(TRAILING_BYTES, (limit - position) + " bytes after " + what);
        }
    }

    private void require(int n) throws MalformedException {
        if (limit - position < n) {
            throw new MalformedException(TRUNCATED, "needed " + n + " bytes, " + (limit - position) + " left");
        }
    }
}
