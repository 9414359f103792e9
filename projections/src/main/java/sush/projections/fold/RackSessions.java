package sush.projections.fold;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.Set;

import sush.gossip.clock.Version;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;

/**
 * The sessions of the rack's ordering, as one sled folds them: the {@code causal} fold of starts
 * and stops, or the {@code signed} fold of grants by the signer's total order with every valid
 * grant remembered by session (bounded like the causal fold's sessions: who started each, and
 * its place in the order). Only the fold of the rack's ordering is fed; the other stays empty.
 */
final class RackSessions {
    /** The rack's session ordering: which of the two session folds below is fed. */
    final Ordering ordering;
    /** Sessions of the {@code causal} ordering (starts and stops in causal order). */
    final SessionProjection causal;
    /** Sessions of the {@code signed} ordering (grants by the signer's total order). */
    final OrderedSessionProjection signed;
    /** Bound on {@link #granted} ({@link FoldBounds#sessions()}). */
    private final int bound;
    /**
     * Signed ordering: every valid grant folded, by session, bounded like the causal fold's
     * sessions: who started each (stops of its jobs), and its place in the order.
     */
    private final LinkedHashMap<SessionId, SignedGrant> granted = new LinkedHashMap<>();
    /** Grants that failed their trust check: ignored. */
    private long invalidGrants;
    /** Grants the bound made this fold forget. */
    private long evictedGrants;
    /** Signed ordering: the active grant last asked for, as a session. */
    private Active active;

    private record Active(SignedGrant grant, SessionProjection.Session session) {
    }

    RackSessions(Ordering ordering, FoldBounds bounds) {
        this.ordering = ordering;
        this.bound = bounds.sessions();
        this.causal = new SessionProjection(bounds.sessions());
        this.signed = new OrderedSessionProjection(bounds.sessionStops());
    }

    /** An independent copy of {@code o}. */
    RackSessions(RackSessions o) {
        this.ordering = o.ordering;
        this.bound = o.bound;
        this.causal = new SessionProjection(o.causal);
        this.signed = new OrderedSessionProjection(o.signed);
        this.granted.putAll(o.granted);
        this.invalidGrants = o.invalidGrants;
        this.evictedGrants = o.evictedGrants;
    }

    /** A grant as the session the chain, the runtime and the API see (no causal start, no acceptor). */
    static SessionProjection.Session asSession(SignedGrant g) {
        return new SessionProjection.Session(g.grant().session(), Version.ZERO, g.grant().starter(), "");
    }

    /** The active session of either ordering. */
    Optional<SessionProjection.Session> active() {
        if (ordering != Ordering.SIGNED) {
            return causal.active();
        }
        Optional<SignedGrant> g = signed.active();
        if (g.isEmpty()) {
            return Optional.empty();
        }
        Active a = active;
        if (a == null || a.grant() != g.get()) { // a grant's session id is a hash: asked on every delivery, made once
            a = new Active(g.get(), asSession(g.get()));
            active = a; // one reference, of final fields: a reader on another thread sees a whole pair
        }
        return Optional.of(a.session());
    }

    /** A session this fold knows (started, or granted), of either ordering. */
    Optional<SessionProjection.Session> session(SessionId id) {
        return ordering == Ordering.SIGNED ? Optional.ofNullable(granted.get(id)).map(RackSessions::asSession)
                : causal.session(id);
    }

    /** Signed ordering: the active session's grant (its place in the order), if any. */
    Optional<SignedGrant> activeGrant() {
        return ordering == Ordering.SIGNED ? signed.active() : Optional.empty();
    }

    /** Signed ordering: the newest grant this fold holds, stopped or not. */
    Optional<SignedGrant> newestGrant() {
        return ordering == Ordering.SIGNED ? signed.newest() : Optional.empty();
    }

    /** Signed ordering: the grant of session {@code id}, if this fold folded it. */
    Optional<SignedGrant> grant(SessionId id) {
        return Optional.ofNullable(granted.get(id));
    }

    /** Whether the newest grant of the signed fold, stopped or not, is session {@code id}'s. */
    boolean isNewest(SessionId id) {
        return signed.newest().map(n -> n.grant().session().equals(id)).orElse(false);
    }

    /**
     * Remembers a valid grant (the first one of its session wins); past the bound, forgets the
     * oldest one no one relies on (see {@link #evictGrant}).
     */
    void remember(SignedGrant g, JobSessions jobs) {
        SessionId id = g.grant().session();
        if (!granted.containsKey(id)) {
            granted.put(id, g);
            evictGrant(id, jobs);
        }
    }

    /**
     * Past the bound, forgets the oldest grant that no one relies on: never the newest grant (the
     * active session's, or the one a stop left inactive), never the one just folded, never the
     * session of a job committed here and not ended. What it forgets is older than the newest,
     * so its session already ended here (superseded) and its late requests end at once.
     */
    private void evictGrant(SessionId justFolded, JobSessions jobs) {
        if (granted.size() <= bound) {
            return;
        }
        Optional<SessionId> newest = signed.newest().map(n -> n.grant().session());
        Set<SessionId> pinned = jobs.pinnedSessions();
        for (Iterator<SessionId> it = granted.keySet().iterator(); it.hasNext();) {
            SessionId s = it.next();
            if (!s.equals(justFolded) && !newest.map(s::equals).orElse(false) && !pinned.contains(s)) {
                it.remove();
                evictedGrants++;
                return;
            }
        }
    }

    /** Counts a grant that failed its trust check (it is ignored). */
    void refused() {
        invalidGrants++;
    }

    /** Grants that failed the trust check, ignored. */
    long invalidGrants() {
        return invalidGrants;
    }

    /** Grants the bound made this fold forget. */
    long evictedGrants() {
        return evictedGrants;
    }

    /** Grants remembered now. */
    int grants() {
        return granted.size();
    }
}
