package sush.ops.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

/** Sequence numbers: consecutive within a burst (parallel ranges), the clock after a pause. */
class CredentialsSeqTest {
    @Test
    void aBurstTakesConsecutiveNumbersAndAPauseTakesTheClock() {
        Credentials c = new Credentials(() -> {
            throw new SshKey.KeyException("no key needed");
        }, Optional.empty());
        long t = 1_796_000_000_000L;
        long first = c.nextSeq(t);
        assertEquals(t * 1000, first, "the first takes the clock in microseconds");
        // Four requests of a parallel download, signed milliseconds apart: within one window.
        assertEquals(first + 1, c.nextSeq(t + 3));
        assertEquals(first + 2, c.nextSeq(t + 40));
        assertEquals(first + 3, c.nextSeq(t + 900));
        // After a pause, the clock again: a later process sharing the identity starts above.
        long later = c.nextSeq(t + 900 + Credentials.BURST_MILLIS);
        assertEquals((t + 900 + Credentials.BURST_MILLIS) * 1000, later);
        // A clock stepping back never reuses a number.
        assertTrue(c.nextSeq(t - 60_000) > later);
    }
}
