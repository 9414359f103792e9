package sush.projections.message;

import java.util.Arrays;
import java.util.function.Function;

import sush.projections.id.Id88;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * Ids repeat across messages (a job's id is in its request and in every sled's events about it,
 * a session's in each of its jobs): decoding hands out the id object an earlier message already
 * made, so the projections hold one copy instead of one per status. Ids are immutable, so the
 * tables are read and written from any thread without locks; a lost race only makes an id.
 */
final class RecentIds<T extends Id88> {
    static final RecentIds<JobId> JOBS = new RecentIds<>(JobId::new);
    static final RecentIds<SessionId> SESSIONS = new RecentIds<>(SessionId::new);

    private static final int SLOTS = 4096;

    private final Object[] recent = new Object[SLOTS];
    private final Function<byte[], T> make;

    private RecentIds(Function<byte[], T> make) {
        this.make = make;
    }

    @SuppressWarnings("unchecked")
    T of(byte[] bytes) {
        int h = Arrays.hashCode(bytes);
        int slot = (h ^ (h >>> 12)) & (SLOTS - 1);
        T seen = (T) recent[slot];
        if (seen != null && seen.hashCode() == h && seen.is(bytes)) {
            return seen;
        }
        T fresh = make.apply(bytes);
        recent[slot] = fresh;
        return fresh;
    }
}
