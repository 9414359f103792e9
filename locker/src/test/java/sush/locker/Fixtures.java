package sush.locker;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.record.Bloom;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.locker.record.Left;
import sush.locker.record.Outcome;
import sush.projections.fold.JobStatus;
import sush.projections.id.Chain;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/** Builders shared by the locker tests: deterministic universes, sessions, jobs and records. */
public final class Fixtures {
    public static final String ME = "913-0000019:BRM42220001";
    public static final String OTHER = "913-0000019:BRM42220002";

    private Fixtures() {
    }

    /** Thrown from a slot's write hook: the process dies there. */
    public static final class Crash extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    /** Lets {@code writes} writes across {@code slots} happen, then crashes at the next one. */
    public static void crashAfter(int writes, sush.locker.store.MemorySlot... slots) {
        int[] left = {writes};
        Runnable hook = () -> {
            if (left[0]-- == 0) {
                throw new Crash();
            }
        };
        for (sush.locker.store.MemorySlot s : slots) {
            s.beforeWrite(hook);
        }
    }

    /** Removes the crash hooks. */
    public static void noCrash(sush.locker.store.MemorySlot... slots) {
        for (sush.locker.store.MemorySlot s : slots) {
            s.beforeWrite(() -> { });
        }
    }

    public static NetworkId universe(int n) {
        byte[] b = new byte[NetworkId.SIZE_BYTES];
        b[0] = (byte) 0x5a;
        b[15] = (byte) n;
        return NetworkId.of(b);
    }

    public static SessionId session(String name) {
        return new SessionId(Hashes.low88(Hashes.sha3("fixture-session", name.getBytes(StandardCharsets.UTF_8))));
    }

    /** The {@code i}-th position of a session's chain, as if each job's successor were next(position). */
    public static JobId job(SessionId s, int i) {
        JobId j = Chain.first(s);
        for (int k = 0; k < i; k++) {
            j = successor(j);
        }
        return j;
    }

    public static JobId successor(JobId j) {
        return Chain.next(Hashes.sha3("fixture-digest", j.toBytes()));
    }

    /** Versions of a universe where {@code parties} sleds tick. */
    public static List<Id> ids(int parties) {
        return Id.ONE.fork(parties);
    }

    public static Version ticks(Id id, int n) {
        Version v = Version.ZERO;
        for (int i = 0; i < n; i++) {
            v = v.tick(id);
        }
        return v;
    }

    public static Committed committed(SessionId s, int i, Outcome o) {
        return new Committed(s, job(s, i), job(s, i + 1), o);
    }

    /** A full record: a committed job, 16 recent universes each with a committed job, a populated filter. */
    public static BoundaryRecord full() {
        List<Id> ids = ids(32);
        Version executed = Version.ZERO;
        for (int k = 0; k < 32; k++) {
            executed = executed.join(ticks(ids.get(k), 1000 + k));
        }
        List<Left> recent = new ArrayList<>();
        for (int u = 1; u <= BoundaryRecord.MAX_RECENT; u++) {
            SessionId s = session("recent-" + u);
            recent.add(new Left(universe(u), executed, Optional.of(committed(s, u,
                    Outcome.ended(JobStatus.STOPPED, 0, "")))));
        }
        Bloom burned = Bloom.EMPTY;
        for (int u = 100; u < 200; u++) {
            burned = burned.with(universe(u));
        }
        SessionId s = session("current");
        return new BoundaryRecord(ME, universe(0), executed, Optional.of(committed(s, 2, Outcome.COMMITTED)), recent,
                burned, false);
    }
}
