package sush.projections.id;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The signer's total order: epoch, then signer bytes, then session bytes, all unsigned. */
class SessionRankTest {
    private static KeyId signer(int first) {
        byte[] b = new byte[Id88.BYTES];
        b[0] = (byte) first;
        return new KeyId(b);
    }

    private static SessionId session(int first) {
        byte[] b = new byte[Id88.BYTES];
        b[0] = (byte) first;
        return new SessionId(b);
    }

    @Test
    void epochThenSignerThenSessionDecideAndOnlyEqualRanksTie() {
        SessionRank r = new SessionRank(5, signer(1), session(1));
        assertTrue(new SessionRank(6, signer(0), session(0)).newerThan(r), "the epoch first");
        assertTrue(new SessionRank(5, signer(2), session(0)).newerThan(r), "then the signer");
        assertTrue(new SessionRank(5, signer(1), session(2)).newerThan(r), "then the session");
        assertTrue(new SessionRank(5, signer(0x80), session(0)).newerThan(new SessionRank(5, signer(0x7f), session(0))),
                "bytes compare unsigned");
        assertTrue(new SessionRank(5, signer(1), session(0x80)).newerThan(new SessionRank(5, signer(1), session(1))));
        assertEquals(0, r.compareTo(new SessionRank(5, signer(1), session(1))));
        assertFalse(r.newerThan(r));
        assertTrue(r.compareTo(new SessionRank(4, signer(9), session(9))) > 0);
        assertTrue(r.compareTo(new SessionRank(5, signer(1), session(0))) > 0);
    }

    @Test
    void samePlaceIsTheSameEpochFromTheSameSigner() {
        SessionRank r = new SessionRank(5, signer(1), session(1));
        assertTrue(r.samePlace(new SessionRank(5, signer(1), session(2))));
        assertTrue(r.samePlace(r));
        assertFalse(r.samePlace(new SessionRank(6, signer(1), session(1))));
        assertFalse(r.samePlace(new SessionRank(5, signer(2), session(1))));
    }

    @Test
    void epochsStartAtZeroAndStopBelowTwoToTheSixtyThird() {
        assertEquals(0, new SessionRank(0, signer(1), session(1)).epoch());
        assertEquals(Long.MAX_VALUE, new SessionRank(Long.MAX_VALUE, signer(1), session(1)).epoch());
        assertThrows(IllegalArgumentException.class, () -> new SessionRank(-1, signer(1), session(1)));
        assertThrows(NullPointerException.class, () -> new SessionRank(1, null, session(1)));
    }
}
