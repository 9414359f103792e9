package sush.projections.fold;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;

/**
 * Sessions of the {@code signed} ordering (ordered-sessions.md section 2), from gossip alone: the
 * active session is the newest valid grant this sled knows, unless it was stopped by its
 * starter. Older grants are superseded forever; stopping the newest leaves none active until a
 * newer grant arrives. Both rules are a max and a set, so every delivery order folds to the same
 * state. Grants reach it already checked (a signer this sled trusts, a good signature).
 */
public final class OrderedSessionProjection {
    /**
     * Bound on remembered stops of sessions not granted here (yet): a stop re-gossiped ahead of
     * its grant, or one of an older session. Past it the oldest is forgotten; within it the fold
     * is the same in every delivery order.
     */
    public static final int MAX_PENDING_STOPS = 64;
    /** Bound on the names remembered as stopping one session not granted here yet. */
    public static final int MAX_STOPPERS = 8;

    private Optional<SignedGrant> newest = Optional.empty();
    private boolean newestStopped;
    /** Who sent stops of sessions this fold holds no grant of, by session, oldest first. */
    private final Map<SessionId, Set<String>> pendingStops = new LinkedHashMap<>();
    private long superseded;
    private final int maxPendingStops;
    /** Stops of sessions not granted here forgotten past {@link #maxPendingStops}. */
    private long evictedStops;

    public OrderedSessionProjection() {
        this(MAX_PENDING_STOPS);
    }

    /** With {@code maxPendingStops} in place of {@link #MAX_PENDING_STOPS} (a scaled-down fold). */
    public OrderedSessionProjection(int maxPendingStops) {
        this.maxPendingStops = maxPendingStops;
    }

    /** An independent copy with the same state. */
    public OrderedSessionProjection(OrderedSessionProjection o) {
        this.newest = o.newest;
        this.newestStopped = o.newestStopped;
        o.pendingStops.forEach((k, v) -> this.pendingStops.put(k, new LinkedHashSet<>(v)));
        this.superseded = o.superseded;
        this.maxPendingStops = o.maxPendingStops;
        this.evictedStops = o.evictedStops;
    }

    /**
     * A valid grant. Returns true when it became the newest one (it supersedes the one before);
     * a grant older than the newest, or the newest again, changes nothing.
     */
    public boolean onGrant(SignedGrant g) {
        if (newest.isPresent() && !g.grant().rank().newerThan(newest.get().grant().rank())) {
            if (!newest.get().grant().session().equals(g.grant().session())) {
                superseded++;
            }
            return false;
        }
        if (newest.isPresent()) {
            superseded++;
        }
        newest = Optional.of(g);
        Set<String> stoppers = pendingStops.remove(g.grant().session());
        newestStopped = stoppers != null && stoppers.contains(g.grant().starter());
        return true;
    }

    /** A stop of {@code session} sent by {@code by}; it counts only if {@code by} started the session. */
    public void onStop(SessionId session, String by) {
        if (newest.isPresent() && newest.get().grant().session().equals(session)) {
            newestStopped |= by.equals(newest.get().grant().starter());
            return;
        }
        Set<String> names = pendingStops.computeIfAbsent(session, k -> new LinkedHashSet<>());
        if (names.size() < MAX_STOPPERS) {
            names.add(by);
        }
        if (pendingStops.size() > maxPendingStops) {
            pendingStops.remove(pendingStops.keySet().iterator().next());
            evictedStops++;
        }
    }

    /** The active session: the newest grant, unless its starter stopped it. */
    public Optional<SignedGrant> active() {
        return newestStopped ? Optional.empty() : newest;
    }

    /** The newest grant known, stopped or not. */
    public Optional<SignedGrant> newest() {
        return newest;
    }

    /** Grants that arrived older than, or were replaced by, a newer one. */
    public long superseded() {
        return superseded;
    }

    /** Stops of sessions not granted here that the bound made this fold forget. */
    public long evictedStops() {
        return evictedStops;
    }

    /** Stops remembered for sessions not granted here (bounded by {@link #MAX_PENDING_STOPS}). */
    public int pendingStops() {
        return pendingStops.size();
    }
}
