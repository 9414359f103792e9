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
    /** Ids key most of the projections' maps: the hash is computed once. */
    private final int hash;
    /**
     * The codephrase, made on first use: ids are printed and keyed by it often, and encoding is
     * not cheap. A racing second encoding gives an equal string (benign).
     */
    private String phrase;

    protected Id88(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("an id is " + BYTES + " bytes, not " + bytes.length);
        }
        this.bytes = bytes.clone();
        this.hash = Arrays.hashCode(this.bytes);
    }

    public final byte[] toBytes() {
        return bytes.clone();
    }

    /** Whether this id is these bytes (no copy made). */
    public final boolean is(byte[] other) {
        return Arrays.equals(bytes, other);
    }

    /** The 8-word codephrase. */
    public final String codephrase() {
        String p = phrase;
        if (p == null) {
            p = Codephrase.encode(bytes, BITS);
            phrase = p;
        }
        return p;
    }

    static byte[] parseBytes(String phrase) throws IdException {
        return Codephrase.decode(phrase, BITS, BYTES);
    }

    @Override
    public final boolean equals(Object o) {
        return o == this || o != null && o.getClass() == getClass() && hash == ((Id88) o).hash
                && Arrays.equals(bytes, ((Id88) o).bytes);
    }

    @Override
    public final int hashCode() {
        return hash;
    }

    @Override
    public final String toString() {
        return codephrase();
    }
}
