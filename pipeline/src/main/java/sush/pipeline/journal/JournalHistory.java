package sush.pipeline.journal;

import java.util.Optional;

import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;

/**
 * A job's statuses read back from a sled's own journal (bounded-gossip.md section 3, issue 39):
 * once the rack settled a job, every sled forgets its messages from gossip, and a sled that
 * restarts no longer folds them; its journal still holds every delivery it folded, in every life,
 * within the journal's budget. The statuses are the product's own {@link StatusProjection} fed the
 * reports on the job in the order this sled delivered them.
 */
public final class JournalHistory {
    private JournalHistory() {
    }

    /** Every status of {@code job} that {@code journal} holds (empty when it holds none). */
    public static StatusProjection statuses(Journal journal, JobId job) throws JournalException {
        StatusProjection out = new StatusProjection();
        journal.readBack(r -> {
            if (r instanceof JournalRecord.Delivered) {
                about(((JournalRecord.Delivered) r).payload(), job).ifPresent(out::apply);
            }
        });
        return out;
    }

    /** The message in {@code payload} when it reports on {@code job}. */
    private static Optional<Message> about(byte[] payload, JobId job) {
        try {
            Message m = MessageCodec.decode(payload);
            return Message.report(m).filter(rep -> rep.job().equals(job)).map(rep -> m);
        } catch (MessageException | RuntimeException e) {
            return Optional.empty(); // a kind this sled does not read: no status of any job
        }
    }
}
