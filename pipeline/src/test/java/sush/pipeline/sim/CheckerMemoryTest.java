package sush.pipeline.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * The checkers' compact memories for long runs (issue 39's million-job rack): they must answer
 * exactly as the hash sets and maps they replace.
 */
class CheckerMemoryTest {
    private static final SessionId SESSION = new SessionId(new byte[11]);

    private static JobId position(int n) {
        JobId at = Chain.first(SESSION);
        for (int i = 0; i < n; i++) {
            at = Chain.afterBurn(at);
        }
        return at;
    }

    @Test
    void aJobSetHoldsNumberedJobsAndOthersAlike() {
        JobSet.Index index = new JobSet.Index();
        JobId a = position(0);
        JobId b = position(1);
        JobId c = position(2);
        JobSet s = new JobSet(index);
        s.add(c); // not numbered yet: kept by id
        index.note(a);
        index.note(b);
        index.note(c); // numbered after it was added: still found
        s.add(a);
        assertTrue(s.contains(a));
        assertFalse(s.contains(b));
        assertTrue(s.contains(c));
        JobSet copy = s.copy();
        s.add(b);
        s.clear();
        assertFalse(s.contains(a) || s.contains(c));
        assertTrue(copy.contains(a) && copy.contains(c) && !copy.contains(b), "a copy does not follow its original");
    }

    @Test
    void fingerprintsRememberTheFirstValueOfEveryKey() {
        Fingerprints f = new Fingerprints();
        Set<Long> keys = new HashSet<>();
        for (int i = 0; i < 50_000; i++) { // grows many times
            long k = Fingerprints.of(new byte[] {(byte) i, (byte) (i >> 8), (byte) (i >> 16)});
            assertTrue(keys.add(k), "distinct encodings, distinct fingerprints");
            assertNull(f.putIfAbsent(k, i));
        }
        assertEquals(50_000, f.size());
        for (int i = 0; i < 50_000; i += 997) {
            long k = Fingerprints.of(new byte[] {(byte) i, (byte) (i >> 8), (byte) (i >> 16)});
            assertEquals(i, f.putIfAbsent(k, -1), "the first value stays");
        }
        assertEquals(50_000, f.size());
    }

    @Test
    void aVersionsFingerprintIsItsEncodings() throws Exception {
        Version once = Version.ZERO.tick(Id.ONE);
        Version twice = once.tick(Id.ONE);
        assertEquals(Fingerprints.of(once.toBytes()), Fingerprints.of(Version.fromBytes(once.toBytes()).toBytes()));
        assertNotEquals(Fingerprints.of(once.toBytes()), Fingerprints.of(twice.toBytes()));
        assertNotEquals(0L, Fingerprints.of(new byte[0]), "0 marks an empty slot");
    }
}
