package sush.locker.record;

import java.util.Arrays;

import sush.gossip.set.NetworkId;
import sush.projections.id.Hashes;

/**
 * The grow-only Bloom filter of universes evicted from {@code recent} (at-most-once.md section 4):
 * 8192 bits, 7 probes taken as little-endian 16-bit words of SHA3-256 of the network bytes. A
 * false positive only ever raises a floor, the safe direction. Immutable.
 */
public final class Bloom {
    public static final int BITS = 8192;
    public static final int BYTES = BITS / 8;
    public static final int PROBES = 7;
    public static final Bloom EMPTY = new Bloom(new byte[BYTES]);

    private final byte[] bits;

    private Bloom(byte[] bits) {
        this.bits = bits;
    }

    public static Bloom of(byte[] bits) {
        if (bits.length != BYTES) {
            throw new IllegalArgumentException("a Bloom filter is " + BYTES + " bytes, not " + bits.length);
        }
        return new Bloom(bits.clone());
    }

    public boolean mightContain(NetworkId network) {
        for (int bit : probes(network)) {
            if ((bits[bit >>> 3] & (1 << (bit & 7))) == 0) {
                return false;
            }
        }
        return true;
    }

    public Bloom with(NetworkId network) {
        byte[] next = bits.clone();
        for (int bit : probes(network)) {
            next[bit >>> 3] |= (byte) (1 << (bit & 7));
        }
        return new Bloom(next);
    }

    /** Bits set, out of {@link #BITS}. */
    public int fill() {
        int n = 0;
        for (byte b : bits) {
            n += Integer.bitCount(b & 0xff);
        }
        return n;
    }

    /** Whether every bit of {@code earlier} is set here (the filter only grows). */
    public boolean covers(Bloom earlier) {
        for (int i = 0; i < BYTES; i++) {
            if ((earlier.bits[i] & ~bits[i]) != 0) {
                return false;
            }
        }
        return true;
    }

    public byte[] toBytes() {
        return bits.clone();
    }

    static int[] probes(NetworkId network) {
        byte[] h = Hashes.sha3Raw(network.toBytes());
        int[] out = new int[PROBES];
        for (int i = 0; i < PROBES; i++) {
            int word = (h[2 * i] & 0xff) | (h[2 * i + 1] & 0xff) << 8;
            out[i] = word % BITS;
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bloom && Arrays.equals(bits, ((Bloom) o).bits);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return "Bloom(" + fill() + "/" + BITS + " bits)";
    }
}
