package sush.locker.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import sush.gossip.set.NetworkId;
import sush.locker.Fixtures;
import sush.projections.id.Hashes;

class BloomTest {
    @Test
    void probesAreLittleEndianWordsOfTheNetworksSha3() {
        NetworkId n = Fixtures.universe(3);
        byte[] h = Hashes.sha3Raw(n.toBytes());
        int[] probes = Bloom.probes(n);
        assertEquals(Bloom.PROBES, probes.length);
        for (int i = 0; i < Bloom.PROBES; i++) {
            assertEquals(((h[2 * i] & 0xff) + 256 * (h[2 * i + 1] & 0xff)) % 8192, probes[i]);
        }
    }

    @Test
    void anAddedUniverseIsAlwaysFoundAndTheFilterOnlyGrows() {
        Bloom b = Bloom.EMPTY;
        for (int u = 0; u < 200; u++) {
            Bloom next = b.with(Fixtures.universe(u));
            assertTrue(next.covers(b));
            b = next;
            for (int v = 0; v <= u; v++) {
                assertTrue(b.mightContain(Fixtures.universe(v)));
            }
        }
        assertFalse(Bloom.EMPTY.covers(b));
        assertTrue(b.fill() <= 200 * Bloom.PROBES);
    }

    @Test
    void anEmptyFilterHoldsNothing() {
        assertFalse(Bloom.EMPTY.mightContain(Fixtures.universe(1)));
        assertEquals(0, Bloom.EMPTY.fill());
        assertEquals(Bloom.EMPTY, Bloom.of(new byte[Bloom.BYTES]));
    }
}
