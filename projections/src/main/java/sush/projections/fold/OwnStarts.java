package sush.projections.fold;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;

import sush.gossip.clock.Version;
import sush.projections.id.JobId;
import sush.projections.message.Message;

/**
 * This sled's own job starts without an own terminal status yet, oldest first: the zombie
 * candidates, which were running when an earlier life ended if they started before this entry.
 * Bounded by {@link SledProjection#MAX_OWN_STARTS}: past it the oldest candidate is dropped
 * (never reported).
 */
final class OwnStarts {
    /** Own starts without an own terminal status yet (zombie candidates), oldest first. */
    private final LinkedHashMap<JobId, Version> myStarts = new LinkedHashMap<>();

    OwnStarts() {
    }

    /** An independent copy of {@code o}. */
    OwnStarts(OwnStarts o) {
        this.myStarts.putAll(o.myStarts);
    }

    /** This sled started {@code job}, delivered at {@code version}. */
    void started(JobId job, Version version) {
        myStarts.put(job, version);
        if (myStarts.size() > SledProjection.MAX_OWN_STARTS) {
            myStarts.remove(myStarts.keySet().iterator().next());
        }
    }

    /** An own start that ended here (by {@code m}, folded into {@code statuses}) is no zombie candidate any more. */
    void forgetEnded(Message m, StatusProjection statuses, String baseboard) {
        JobId job = m instanceof Message.JobStopped ? ((Message.JobStopped) m).job()
                : m instanceof Message.JobErrored ? ((Message.JobErrored) m).job()
                : m instanceof Message.JobSkipped ? ((Message.JobSkipped) m).job()
                : m instanceof Message.JobCancelled ? ((Message.JobCancelled) m).job() : null;
        if (job != null && myStarts.containsKey(job)
                && statuses.status(job, baseboard).map(e -> e.status().isTerminal()).orElse(false)) {
            myStarts.remove(job);
        }
    }

    /**
     * Own job starts from before this entry (not above {@code birth}) with no terminal status
     * from this sled ({@code baseboard}) in {@code statuses}, sorted by their id's hex.
     */
    List<JobId> zombies(Version birth, StatusProjection statuses, String baseboard) {
        List<JobId> out = new ArrayList<>();
        myStarts.forEach((job, version) -> {
            boolean previousEntry = !birth.lessThan(version);
            boolean ended = statuses.status(job, baseboard).map(e -> e.status().isTerminal()).orElse(false);
            if (previousEntry && !ended) {
                out.add(job);
            }
        });
        out.sort(Comparator.comparing(j -> HexFormat.of().formatHex(j.toBytes())));
        return out;
    }

    int size() {
        return myStarts.size();
    }
}
