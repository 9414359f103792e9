package sush.pipeline.journal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import sush.gossip.set.NetworkId;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
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

    /**
     * The jobs of one universe this journal holds, in the order this sled first delivered their
     * requests, with their sessions, and every status delivered for them (a job's request always
     * comes before its statuses).
     */
    public record Universe(Map<JobId, SessionId> jobs, StatusProjection statuses) {
        /** Nothing read. */
        public static Universe none() {
            return new Universe(Map.of(), new StatusProjection());
        }
    }

    /**
     * What {@code journal} holds of universe {@code network}: every delivery made while this sled
     * was in it, in this life or an earlier one (issue 39: {@code job history} after a restart,
     * for the jobs the gossip set forgot).
     */
    public static Universe of(Journal journal, NetworkId network) throws JournalException {
        Map<JobId, SessionId> jobs = new LinkedHashMap<>();
        StatusProjection statuses = new StatusProjection();
        NetworkId[] in = new NetworkId[1];
        journal.readBack(r -> {
            if (r instanceof JournalRecord.Entered) {
                in[0] = ((JournalRecord.Entered) r).network();
            } else if (r instanceof JournalRecord.Delivered && network.equals(in[0])) {
                decode(((JournalRecord.Delivered) r).payload()).ifPresent(m -> {
                    if (m instanceof Message.JobStart) {
                        jobs.putIfAbsent(((Message.JobStart) m).job().request().job(),
                                ((Message.JobStart) m).job().request().session());
                    } else if (Message.report(m).isPresent() && jobs.containsKey(Message.report(m).get().job())) {
                        statuses.apply(m);
                    }
                });
            }
        });
        return new Universe(jobs, statuses);
    }

    /**
     * Every receipt (D-060) {@code journal} holds whose body {@code wanted} accepts, in delivery
     * order, each once: what the sled was told in this life and earlier ones.
     */
    public static java.util.List<Message.JobReceipt> receipts(Journal journal,
            java.util.function.Predicate<sush.projections.job.Receipt> wanted) throws JournalException {
        java.util.LinkedHashSet<Message.JobReceipt> out = new java.util.LinkedHashSet<>();
        journal.readBack(r -> {
            if (r instanceof JournalRecord.Delivered) {
                decode(((JournalRecord.Delivered) r).payload()).filter(m -> m instanceof Message.JobReceipt)
                        .map(m -> (Message.JobReceipt) m).filter(m -> {
                            try {
                                return wanted.test(sush.projections.job.Receipt.parse(m.body()));
                            } catch (sush.projections.job.KeyException e) {
                                return false;
                            }
                        }).ifPresent(out::add);
            }
        });
        return java.util.List.copyOf(out);
    }

    private static Optional<Message> decode(byte[] payload) {
        try {
            return Optional.of(MessageCodec.decode(payload));
        } catch (MessageException | RuntimeException e) {
            return Optional.empty(); // a kind this sled does not read
        }
    }

    /** The message in {@code payload} when it reports on {@code job}. */
    private static Optional<Message> about(byte[] payload, JobId job) {
        return decode(payload).filter(m -> Message.report(m).map(rep -> rep.job().equals(job)).orElse(false));
    }
}
