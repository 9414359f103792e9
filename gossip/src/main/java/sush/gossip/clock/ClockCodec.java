package sush.gossip.clock;

import java.util.Arrays;

import static sush.gossip.wire.MalformedException.Reason.INVALID;
import static sush.gossip.wire.MalformedException.Reason.NON_CANONICAL;
import static sush.gossip.wire.MalformedException.Reason.OUT_OF_RANGE;

import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;
import sush.gossip.wire.WireWriter;

/**
 * The canonical bytes of identities and versions (D-003).
 *
 * <pre>
 * leafCount  varint, 1..MAX_LEAVES
 * shape      preorder bits, 1 = node, 0 = leaf, 2n-1 bits MSB first, zero padding;
 *            absent when n = 1
 * identity:  one bit per leaf, MSB first, zero padding
 * version:   first leaf value as a varint, then each next leaf as a zigzag varint delta
 * </pre>
 *
 * Exactly one encoding per normal form: shortest varints, zero padding, no trailing bytes, and
 * no pair of sibling leaves with equal values (that would not be normal).
 */
final class ClockCodec {
    /** Bound on decoded trees: 262,144 leaves (about 3 MiB of arrays at most). */
    static final int MAX_LEAVES = 1 << 18;

    private ClockCodec() {
    }

    static byte[] encode(int[] depth, long[] value, boolean isVersion) {
        int n = depth.length;
        WireWriter out = new WireWriter(8 + n / 2 + (isVersion ? n * 2 : n / 8));
        out.writeVarint(n);
        if (n > 1) {
            writeShape(out, depth);
        }
        if (isVersion) {
            out.writeVarint(value[0]);
            for (int k = 1; k < n; k++) {
                long delta = value[k] - value[k - 1];
                out.writeVarint((delta << 1) ^ (delta >> 63));
            }
        } else {
            BitWriter bits = new BitWriter(out);
            for (int k = 0; k < n; k++) {
                bits.write(value[k] == 1);
            }
            bits.flush();
        }
        return out.toByteArray();
    }

    static Leaves decode(byte[] bytes, boolean isVersion) throws MalformedException {
        return decode(bytes, 0, bytes.length, isVersion);
    }

    /** The tree in {@code length} bytes of {@code bytes} from {@code offset} (and nothing more). */
    static Leaves decode(byte[] bytes, int offset, int length, boolean isVersion) throws MalformedException {
        WireReader in = new WireReader(bytes, offset, length);
        int n = in.readVarintAtMost(MAX_LEAVES, "leaf count");
        if (n == 0) {
            throw new MalformedException(INVALID, "a tree has at least one leaf");
        }
        int[] depth;
        int[] siblings;
        if (n == 1) {
            depth = new int[] {0};
            siblings = NO_SIBLINGS;
        } else {
            // Stamps of one rack mostly share their shape: the shape of the last tree decoded
            // is kept (with its sibling leaves), and the same bits take it instead of a parse.
            int shapeBytes = (2 * n - 1 + 7) / 8;
            int at = in.position();
            Shape last = lastShape;
            if (last != null && last.leaves == n && in.remaining() >= shapeBytes
                    && Arrays.equals(last.bits, 0, shapeBytes, bytes, at, at + shapeBytes)) {
                in.skip(shapeBytes);
                depth = last.depth;
                siblings = last.siblings;
            } else {
                IntStack pairs = new IntStack();
                depth = readShape(in, n, pairs);
                siblings = pairs.toArray();
                lastShape = new Shape(n, Arrays.copyOfRange(bytes, at, at + shapeBytes), depth, siblings);
            }
        }
        long[] value = new long[n];
        if (isVersion) {
            value[0] = readCounter(in.readVarint());
            for (int k = 1; k < n; k++) {
                long zigzag = in.readVarint();
                long delta = (zigzag >>> 1) ^ -(zigzag & 1);
                value[k] = readCounter(value[k - 1] + delta);
            }
        } else {
            BitReader bits = new BitReader(in, n);
            for (int k = 0; k < n; k++) {
                value[k] = bits.read() ? 1 : 0;
            }
            bits.expectZeroPadding();
        }
        in.expectEnd(isVersion ? "version" : "identity");
        // Normal form: no two sibling leaves hold the same value.
        for (int left : siblings) {
            if (value[left] == value[left + 1]) {
                throw new MalformedException(NON_CANONICAL, "tree is not in normal form");
            }
        }
        return new Leaves(depth, value, n);
    }

    private static final int[] NO_SIBLINGS = {};

    /**
     * The last shape decoded: its bits, leaf depths and sibling leaves. Immutable, so any thread
     * may read or replace it without locks; the depth array is shared by the versions decoded
     * with it, which never write their arrays.
     */
    private static volatile Shape lastShape;

    private static final class Shape {
        final int leaves;
        final byte[] bits;
        final int[] depth;
        final int[] siblings;

        Shape(int leaves, byte[] bits, int[] depth, int[] siblings) {
            this.leaves = leaves;
            this.bits = bits;
            this.depth = depth;
            this.siblings = siblings;
        }
    }

    private static long readCounter(long v) throws MalformedException {
        if (v < 0 || v > Version.MAX_COUNTER) {
            throw new MalformedException(OUT_OF_RANGE, "counter " + v + " outside [0, " + Version.MAX_COUNTER + "]");
        }
        return v;
    }

    /** Preorder shape bits from leaf depths: before each leaf, the nodes it is leftmost in. */
    private static void writeShape(WireWriter out, int[] depth) {
        BitWriter bits = new BitWriter(out);
        IntStack slots = new IntStack();
        slots.push(0);
        for (int d : depth) {
            int slot = slots.pop();
            for (int level = slot; level < d; level++) {
                bits.write(true);
            }
            for (int level = slot + 1; level <= d; level++) {
                slots.push(level);
            }
            bits.write(false);
        }
        bits.flush();
    }

    /**
     * Leaf depths from preorder shape bits; {@code siblings} gets the left index of each pair of
     * sibling leaves: in preorder those are exactly the bits node, leaf, leaf.
     */
    private static int[] readShape(WireReader in, int n, IntStack siblings) throws MalformedException {
        BitReader bits = new BitReader(in, 2 * n - 1);
        int[] depth = new int[n];
        int leaves = 0;
        IntStack slots = new IntStack();
        slots.push(0);
        boolean before = false;
        boolean last = false;
        for (int i = 0; i < 2 * n - 1; i++) {
            if (slots.isEmpty()) {
                throw new MalformedException(INVALID, "shape bits continue past a complete tree");
            }
            int d = slots.pop();
            boolean node = bits.read();
            if (node) {
                slots.push(d + 1);
                slots.push(d + 1);
            } else {
                if (leaves == n) {
                    throw new MalformedException(INVALID, "shape has more than " + n + " leaves");
                }
                if (i >= 2 && before && !last) {
                    siblings.push(leaves - 1);
                }
                depth[leaves++] = d;
            }
            before = last;
            last = node;
        }
        if (!slots.isEmpty() || leaves != n) {
            throw new MalformedException(INVALID, "shape bits do not form a tree of " + n + " leaves");
        }
        bits.expectZeroPadding();
        return depth;
    }

    /** Packs bits MSB first. */
    private static final class BitWriter {
        private final WireWriter out;
        private int current;
        private int used;

        BitWriter(WireWriter out) {
            this.out = out;
        }

        void write(boolean bit) {
            current = (current << 1) | (bit ? 1 : 0);
            if (++used == 8) {
                out.writeByte(current);
                current = 0;
                used = 0;
            }
        }

        void flush() {
            if (used > 0) {
                out.writeByte(current << (8 - used));
                current = 0;
                used = 0;
            }
        }
    }

    /** Reads a declared number of bits MSB first; the padding of the last byte must be zero. */
    private static final class BitReader {
        private final byte[] bytes;
        private final int count;
        private int next;

        BitReader(WireReader in, int count) throws MalformedException {
            this.count = count;
            this.bytes = in.readBytes((count + 7) / 8);
        }

        boolean read() {
            int i = next++;
            return ((bytes[i >>> 3] >>> (7 - (i & 7))) & 1) == 1;
        }

        void expectZeroPadding() throws MalformedException {
            int padding = bytes.length * 8 - count;
            if (padding > 0 && (bytes[bytes.length - 1] & ((1 << padding) - 1)) != 0) {
                throw new MalformedException(NON_CANONICAL, "non-zero padding bits");
            }
        }
    }
}
