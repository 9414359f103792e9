package sush.projections.fold;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

import sush.projections.id.SessionId;
import sush.projections.message.Message;

/**
 * The requests (and the skips and stops) a sled holds for sessions whose start has not arrived:
 * concurrent with the start, they may be delivered first on some sleds, and dropping them there
 * would make sleds disagree. Bounded by {@link FoldBounds#earlyMessages()}: past it the oldest
 * session's held messages are dropped, and counted.
 */
final class EarlyMessages {
    private final int bound;
    private final LinkedHashMap<SessionId, List<Message>> early = new LinkedHashMap<>();
    private int earlyCount;
    private long droppedEarly;

    EarlyMessages(int bound) {
        this.bound = bound;
    }

    /** An independent copy of {@code o} (each session's held list copied). */
    EarlyMessages(EarlyMessages o) {
        this.bound = o.bound;
        o.early.forEach((session, held) -> this.early.put(session, new ArrayList<>(held)));
        this.earlyCount = o.earlyCount;
        this.droppedEarly = o.droppedEarly;
    }

    /** Keeps {@code m} until {@code session} starts, dropping the oldest session's messages past the bound. */
    void hold(SessionId session, Message m) {
        if (earlyCount >= bound) {
            SessionId oldest = early.keySet().iterator().next();
            earlyCount -= early.remove(oldest).size();
            droppedEarly++;
        }
        early.computeIfAbsent(session, k -> new ArrayList<>()).add(m);
        earlyCount++;
    }

    /** Takes what was held for {@code session}, in the order it arrived; null if nothing was. */
    List<Message> release(SessionId session) {
        List<Message> held = early.remove(session);
        if (held == null) {
            return null;
        }
        earlyCount -= held.size();
        return held;
    }

    /** Messages held now. */
    int count() {
        return earlyCount;
    }

    /** Messages the bound dropped. */
    long dropped() {
        return droppedEarly;
    }
}
