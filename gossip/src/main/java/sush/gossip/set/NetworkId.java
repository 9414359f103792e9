package sush.gossip.set;

import java.util.Arrays;
import java.util.HexFormat;

import sush.gossip.Entropy;

/**
 * The name of a universe: 128 random bits. All-zero is reserved for a replica that is
 * bootstrapping and belongs to no universe yet. Ordered as unsigned bytes, the tie-break of
 * the universe contest.
 */
public final class NetworkId implements Comparable<NetworkId> {
    public static final int SIZE_BYTES = 16;
    public static final NetworkId BOOTSTRAPPING = new NetworkId(new byte[SIZE_BYTES]);

    private final byte[] bytes;

    private NetworkId(byte[] bytes) {
        this.bytes = bytes;
    }

    /** A fresh universe name; never the reserved all-zero value. */
    public static NetworkId random(Entropy entropy) {
        byte[] bytes = new byte[SIZE_BYTES];
        do {
            entropy.nextBytes(bytes);
        } while (Arrays.equals(bytes, BOOTSTRAPPING.bytes));
        return new NetworkId(bytes);
    }

    public static NetworkId of(byte[] bytes) {
        if (bytes.length != SIZE_BYTES) {
            throw new IllegalArgumentException("a network id is " + SIZE_BYTES + " bytes, not " + bytes.length);
        }
        return new NetworkId(bytes.clone());
    }

    public boolean isBootstrapping() {
        return Arrays.equals(bytes, BOOTSTRAPPING.bytes);
    }

    public byte[] toBytes() {
        return bytes.clone();
    }

    @Override
    public int compareTo(NetworkId other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NetworkId && Arrays.equals(bytes, ((NetworkId) o).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}
