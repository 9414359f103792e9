package sush.projections.id;

import java.util.Arrays;

/**
 * An 88-bit id (11 bytes, big-endian), printed as an 8-word codephrase. Subclasses name what it
 * identifies; two ids are equal only if they are of the same kind and value.
 */
public abstract class Id88 {
    public static final int BITS = 88;
    public static final int BYTES = 11;

    private final byte[] bytes;

    protected Id88(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("an id is " + BYTES + " bytes, not " + bytes.length);
        }
        this.bytes = bytes.clone();
    }

    public final byte[] toBytes() {
        return bytes.clone();
    }

    /** The 8-word codephrase. */
    public final String codephrase() {
        return Codephrase.encode(bytes, BITS);
    }

    static byte[] parseBytes(String phrase) throws IdException {
        return Codephrase.decode(phrase, BITS, BYTES);
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Arrays.equals(bytes, ((Id88) o).bytes);
    }

    @Override
    public final int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public final String toString() {
        return codephrase();
    }
}
