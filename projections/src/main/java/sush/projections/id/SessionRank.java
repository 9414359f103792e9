package sush.projections.id;

import java.util.Arrays;
import java.util.Objects;

/**
 * A session's place in the signer's total order (ordered-sessions.md section 1): by epoch, then
 * by signer key id, then by session id. An epoch is a signer's millisecond clock kept strictly
 * increasing, so it lies in [0, 2^63) for the next 292 million years; the record stores it as a
 * CBOR integer of that range. The last tie only a broken
 * signer makes (one epoch issued twice); it still orders the two the same way on every sled.
 */
public record SessionRank(long epoch, KeyId signer, SessionId session) implements Comparable<SessionRank> {
    public SessionRank {
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(session, "session");
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch " + Long.toUnsignedString(epoch) + " is past 2^63 - 1");
        }
    }

    @Override
    public int compareTo(SessionRank o) {
        int c = Long.compare(epoch, o.epoch);
        if (c != 0) {
            return c;
        }
        c = Arrays.compareUnsigned(signer.toBytes(), o.signer.toBytes());
        return c != 0 ? c : Arrays.compareUnsigned(session.toBytes(), o.session.toBytes());
    }

    /** Strictly after {@code o} in the order. */
    public boolean newerThan(SessionRank o) {
        return compareTo(o) > 0;
    }

    /** The same epoch from the same signer: one place in the order (two sessions there mean reuse). */
    public boolean samePlace(SessionRank o) {
        return epoch == o.epoch && signer.equals(o.signer);
    }
}
