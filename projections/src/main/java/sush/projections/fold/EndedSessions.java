package sush.projections.fold;

import java.util.LinkedHashMap;
import java.util.List;

import sush.projections.id.SessionId;

/**
 * The sessions that stopped being active here (or never were), and why: a late request of one
 * ends at once. Bounded by {@link FoldBounds#sessionEndings()} (an id and why each: far smaller
 * than a session); past it the oldest ending is forgotten, and counted.
 */
final class EndedSessions {
    private final int bound;
    private final LinkedHashMap<SessionId, SessionProjection.Ending> ended = new LinkedHashMap<>();
    private long evictedEndings;

    EndedSessions(int bound) {
        this.bound = bound;
    }

    /** An independent copy of {@code o}. */
    EndedSessions(EndedSessions o) {
        this.bound = o.bound;
        this.ended.putAll(o.ended);
        this.evictedEndings = o.evictedEndings;
    }

    /** Remembers that {@code session} ended as {@code why}. */
    void end(SessionId session, SessionProjection.Ending why) {
        ended.put(session, why);
        if (ended.size() > bound) {
            ended.remove(ended.keySet().iterator().next());
            evictedEndings++;
        }
    }

    boolean contains(SessionId session) {
        return ended.containsKey(session);
    }

    /** Why {@code session} ended, or null if it is not remembered as ended. */
    SessionProjection.Ending get(SessionId session) {
        return ended.get(session);
    }

    int size() {
        return ended.size();
    }

    /** The sessions remembered as ended, oldest first. */
    List<SessionId> ids() {
        return List.copyOf(ended.keySet());
    }

    /** Endings the bound made this fold forget. */
    long evicted() {
        return evictedEndings;
    }
}
