package sush.projections.fold;

import java.util.LinkedHashMap;
import java.util.Map;

import sush.projections.id.SessionId;
import sush.projections.message.Message;

/**
 * The access settings folded, one per session and key (issue 19): what a session's starter last
 * set for a key on its interactive jobs. Bounded by {@link SledProjection#MAX_ACCESSES}: past it
 * a new pair is not remembered, while a known pair is still updated.
 */
final class Accesses {
    private final Map<String, Message.SessionAccess> accesses = new LinkedHashMap<>();

    Accesses() {
    }

    /** An independent copy of {@code o}. */
    Accesses(Accesses o) {
        this.accesses.putAll(o.accesses);
    }

    /** Folds a setting: the latest one for its session and key replaces the one before (and moves last). */
    void set(Message.SessionAccess a) {
        String k = a.session().codephrase() + " " + a.key();
        if (accesses.containsKey(k) || accesses.size() < SledProjection.MAX_ACCESSES) {
            accesses.remove(k);
            accesses.put(k, a);
        }
    }

    /** The last setting for {@code key} on session {@code id}, or null. */
    Message.SessionAccess get(SessionId id, String key) {
        return accesses.get(id.codephrase() + " " + key);
    }

    int size() {
        return accesses.size();
    }
}
