package sush.pipeline.journal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import sush.projections.fold.SledProjection;
import sush.projections.job.TrustStore;
import sush.projections.targets.Sled;

/**
 * Folds a journal back through the projections, as the live sled did: each entry starts a fresh
 * fold, deliveries are applied in journal order, resumptions and passed heads are fed back. Yields
 * the timeline and the state after any step.
 */
public final class Replay {
    /** One record of the timeline and what the fold said about it. */
    public record Step(long index, JournalRecord record, String note) {
    }

    /** The timeline up to the step asked for, and the fold's state there. */
    public record Result(List<Step> timeline, Optional<SledProjection> state, long records) {
    }

    private Replay() {
    }

    /**
     * Replays {@code dir} up to and including record {@code until} (all records if negative).
     * The timeline keeps every record; {@code state} is the fold of the last entry reached.
     */
    public static Result run(Path dir, Optional<byte[]> key, Sled me, TrustStore trust, long until)
            throws JournalException {
        List<Step> timeline = new ArrayList<>();
        SledProjection[] fold = new SledProjection[1];
        long[] n = {0};
        Journal.read(dir, key, r -> {
            if (until >= 0 && n[0] > until) {
                return;
            }
            timeline.add(new Step(n[0], r, apply(r, fold, me, trust)));
            n[0]++;
        });
        return new Result(timeline, Optional.ofNullable(fold[0]), n[0]);
    }

    /** Applies one record to the fold of the current entry; returns a note for the timeline. */
    static String apply(JournalRecord r, SledProjection[] fold, Sled me, TrustStore trust) {
        if (r instanceof JournalRecord.Entered) {
            fold[0] = new SledProjection(me, trust);
            return "entry: a fresh fold";
        }
        if (fold[0] == null) {
            return "before any entry: ignored";
        }
        if (r instanceof JournalRecord.Delivered) {
            JournalRecord.Delivered d = (JournalRecord.Delivered) r;
            return fold[0].apply(d.version(), d.payload()).toString();
        }
        if (r instanceof JournalRecord.Resumed) {
            JournalRecord.Resumed x = (JournalRecord.Resumed) r;
            fold[0].resume(new SledProjection.Resumption(x.session(), x.committed(), x.successor()));
            return "resumed";
        }
        if (r instanceof JournalRecord.Passed) {
            JournalRecord.Passed x = (JournalRecord.Passed) r;
            try {
                return fold[0].passHead(x.job(), x.ran()).toString();
            } catch (IllegalStateException e) {
                // The live sled passes only the job at its head: this journal disagrees with its fold.
                return "inconsistent: " + e.getMessage();
            }
        }
        return "";
    }
}
