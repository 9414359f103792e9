package sush.locker.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import sush.gossip.set.NetworkId;
import sush.locker.record.Bloom;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Left;

/**
 * Which past applies at an entry (at-most-once.md section 5) and whether the entry itself raises
 * a floor (section 3, causes 1 and 2). Pure.
 *
 * @param snapshot the record as it stands for this entry, after the entry's adjustments
 * @param floor the cause of a floor raised at entry, if one is
 */
public record Entry(Optional<BoundaryRecord> snapshot, Optional<FloorCause> floor) {
    /** Computes the entry into universe {@code n} with the newest record {@code rec}. */
    public static Entry enter(Optional<BoundaryRecord> rec, NetworkId n) {
        return enter(rec, n, BoundaryRecord.MAX_RECENT);
    }

    /**
     * As {@link #enter(Optional, NetworkId)} with {@code recentCapacity} universes kept exactly
     * (the model check lowers it to reach the Bloom path with two universes).
     */
    public static Entry enter(Optional<BoundaryRecord> rec, NetworkId n, int recentCapacity) {
        if (rec.isEmpty()) {
            // Cause 2: no record; a first visit cannot be told from a return after the record was
            // lost. Raised even with an empty arrival: the peer we joined through may lag.
            return new Entry(rec, Optional.of(FloorCause.NO_TRUSTWORTHY_HISTORY));
        }
        BoundaryRecord r = rec.get();
        if (r.network().equals(n)) {
            return new Entry(rec, Optional.empty());
        }
        Optional<Left> left = r.left(n);
        if (left.isPresent()) {
            return new Entry(Optional.of(swapIn(r, left.get(), recentCapacity)), Optional.empty());
        }
        if (r.burned().mightContain(n)) {
            // Cause 1: we left this universe long enough ago that only the filter remembers it.
            return new Entry(rec, Optional.of(FloorCause.UNIVERSE_FLIP_FLOP));
        }
        return new Entry(rec, r.amnesiac() ? Optional.of(FloorCause.NO_TRUSTWORTHY_HISTORY) : Optional.empty());
    }

    /** {@code r} seen from the recent universe {@code back}: its past becomes the current one. */
    private static BoundaryRecord swapIn(BoundaryRecord r, Left back, int recentCapacity) {
        List<Left> recent = new ArrayList<>(r.recent());
        recent.remove(back);
        Bloom burned = leave(recent, r.burned(), new Left(r.network(), r.executed(), r.committed()), recentCapacity);
        BoundaryRecord s = new BoundaryRecord(r.baseboard(), back.network(), back.executed(), back.committed(), recent,
                burned, r.amnesiac());
        BoundaryRecord.checkI1(Optional.of(r), s);
        return s;
    }

    /**
     * Appends {@code gone} as the most recently left universe, evicting the least recently left
     * into the Bloom filter past {@code capacity}. A genesis record's non-universe is not kept.
     */
    static Bloom leave(List<Left> recent, Bloom burned, Left gone, int capacity) {
        if (gone.network().isBootstrapping()) {
            return burned;
        }
        recent.add(gone);
        Bloom b = burned;
        while (recent.size() > capacity) {
            b = b.with(recent.remove(0).network());
        }
        return b;
    }
}
