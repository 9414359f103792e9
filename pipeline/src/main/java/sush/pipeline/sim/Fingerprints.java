package sush.pipeline.sim;

/**
 * A map from 64-bit fingerprints to ints, kept in two arrays (open addressing): the identity
 * checker's memory of every message version a universe ever held (D-053), which a million-job
 * rack fills with tens of millions (as a map of versions, several gigabytes; here 12 bytes a slot).
 * A fingerprint is a 64-bit FNV-1a hash of the version's encoding, mixed (it is taken on every
 * delivery): two versions share one by chance with odds about n^2 / 2^65, some 1 in 100,000 at
 * 20 million, and a shared one is reported as a version naming two messages (never hidden).
 */
final class Fingerprints {
    private static final long EMPTY = 0L;
    private long[] keys = new long[1 << 10];
    private int[] values = new int[1 << 10];
    private int size;

    /** The fingerprint of {@code bytes} (never 0: 0 marks an empty slot). */
    static long of(byte[] bytes) {
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33; // a final mix, so that the slot's low bits depend on every byte
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h == EMPTY ? 1 : h;
    }

    /**
     * Puts {@code value} at {@code key} unless a value is there already; returns the value that
     * was there, or null.
     */
    Integer putIfAbsent(long key, int value) {
        if (size * 2 >= keys.length) {
            grow();
        }
        int i = slot(keys, key);
        if (keys[i] == key) {
            return values[i];
        }
        keys[i] = key;
        values[i] = value;
        size++;
        return null;
    }

    int size() {
        return size;
    }

    private static int slot(long[] keys, long key) {
        int mask = keys.length - 1;
        int i = (int) (key ^ (key >>> 32)) & mask;
        while (keys[i] != EMPTY && keys[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != EMPTY) {
                int i = slot(keys, oldKeys[j]);
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
            }
        }
    }
}
