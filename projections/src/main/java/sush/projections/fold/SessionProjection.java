package sush.projections.fold;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.message.Message.SessionStart;
import sush.projections.message.Message.SessionStop;

/**
 * Which session is active, folded from session starts and stops in causal order
 * (at-most-once.md section 2). Pure: the same messages in any causal order give the same state.
 *
 * <p>A start whose version strictly dominates the join of every start seen so far supersedes
 * the active session. A start concurrent with the active session kills both (one
 * {@code ConcurrentSessions} error). Every other start (dominated, equal, or concurrent while no
 * session is active) is absorbed into the join and never activated: activating it would make
 * the result depend on delivery order. A stop from the session's starter ends it.
 */
public final class SessionProjection {
    /** Bound on the sessions remembered (ended ones are evicted oldest first past it). */
    public static final int MAX_SESSIONS = 4096;

    private Version startsJoin = Version.ZERO;
    private Session active;
    private final Map<SessionId, Session> known = new HashMap<>();
    private final List<SessionId> order = new ArrayList<>();
    /**
     * Every session id ever seen (bounded: a rack starts a few sessions a day; past the bound the
     * oldest ids are forgotten, documented as a limit). Ids outlive their evicted records.
     */
    private final LinkedHashSet<SessionId> seenIds = new LinkedHashSet<>();
    public static final int MAX_SEEN_IDS = 1 << 20;
    private long forgedStarts;
    private long ignoredStops;

    private final int maxSessions;
    /** Sessions forgotten past {@link #maxSessions}. */
    private long evicted;

    public SessionProjection() {
        this(MAX_SESSIONS);
    }

    /** With {@code maxSessions} in place of {@link #MAX_SESSIONS} (a scaled-down fold). */
    public SessionProjection(int maxSessions) {
        this.maxSessions = maxSessions;
    }

    /** An independent copy with the same state (see {@link SledProjection#copy()}). */
    SessionProjection(SessionProjection o) {
        this.startsJoin = o.startsJoin;
        this.active = o.active;
        this.known.putAll(o.known);
        this.order.addAll(o.order);
        this.seenIds.addAll(o.seenIds);
        this.forgedStarts = o.forgedStarts;
        this.ignoredStops = o.ignoredStops;
        this.maxSessions = o.maxSessions;
        this.evicted = o.evicted;
    }

    /** A session the fold has seen. */
    public record Session(SessionId id, Version start, String starter, String acceptor) {
    }

    /** Why a session stopped being active. */
    public enum Ending {
        SUPERSEDED, ANNIHILATED, STOPPED
    }

    /** What one message changed; the sled turns these into skips and error reports. */
    public sealed interface Change {
        /** {@code session} became the active one. */
        record Activated(Session session) implements Change {
        }

        /** {@code session} is no longer active, for {@code why}. */
        record Ended(Session session, Ending why) implements Change {
        }

        /** Two concurrent sessions met and both died. */
        record Concurrent(Session first, Session second) implements Change {
        }
    }

    public List<Change> onStart(Version version, SessionStart start) {
        if (start.sledNonce().length != SessionIds.NONCE_BYTES
                || !SessionIds.compute(start.acceptor(), start.sledNonce(), start.clientNonce()).equals(start.session())) {
            forgedStarts++;
            return List.of();
        }
        // A session id seen before is never activated again: its jobs may have run here, and a
        // fresh activation would offer them at the head once more. It still counts as a start
        // (it may supersede or annihilate), so the fold stays the same in every order.
        boolean repeated = !seenIds.add(start.session()) || known.containsKey(start.session());
        Session s = new Session(start.session(), version, start.starter(), start.acceptor());
        if (!repeated) {
            remember(s);
        }
        List<Change> changes = new ArrayList<>(2);
        boolean dominates = startsJoin.lessThan(version);
        if (dominates) {
            if (active != null) {
                changes.add(new Change.Ended(active, Ending.SUPERSEDED));
                active = null;
            }
            if (!repeated) {
                active = s;
                changes.add(new Change.Activated(s));
            }
        } else if (active != null && active.start().concurrentWith(version)) {
            changes.add(new Change.Ended(active, Ending.ANNIHILATED));
            changes.add(new Change.Concurrent(active, s));
            active = null;
        }
        startsJoin = startsJoin.join(version);
        return changes;
    }

    public List<Change> onStop(SessionStop stop) {
        if (active == null || !active.id().equals(stop.session()) || !active.starter().equals(stop.by())) {
            ignoredStops++;
            return List.of();
        }
        Session ended = active;
        active = null;
        return List.of(new Change.Ended(ended, Ending.STOPPED));
    }

    public Optional<Session> active() {
        return Optional.ofNullable(active);
    }

    public Optional<Session> session(SessionId id) {
        return Optional.ofNullable(known.get(id));
    }

    /** The join of every valid start seen. */
    public Version startsJoin() {
        return startsJoin;
    }

    public long forgedStarts() {
        return forgedStarts;
    }

    /** Sessions the bound made this fold forget. */
    public long evicted() {
        return evicted;
    }

    public long ignoredStops() {
        return ignoredStops;
    }

    private void remember(Session s) {
        if (seenIds.size() > MAX_SEEN_IDS) {
            seenIds.remove(seenIds.iterator().next());
        }
        known.put(s.id(), s);
        order.add(s.id());
        if (order.size() > maxSessions) {
            SessionId oldest = order.remove(0);
            if (active == null || !active.id().equals(oldest)) {
                known.remove(oldest);
                evicted++;
            } else {
                order.add(oldest);
            }
        }
    }
}
