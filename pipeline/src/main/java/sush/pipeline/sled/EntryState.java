package sush.pipeline.sled;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.SignedRecord;
import sush.projections.fold.Settlement;
import sush.projections.fold.SledProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.message.Message;

/**
 * What one entry into a universe holds (at-most-once.md section 3): built when the sled enters,
 * after the boundary writer drained, and dropped at the next entry, so nothing of one entry's
 * reports leaks into the next. The universe, its replica and the record as the entry found it
 * are fixed when it is built; its fold once the entry's announcement and floor are out; the
 * floor, replay and the once-per-entry reports change while its deliveries are folded. It is
 * folding from then until the next entry arrives (it is left, and its fold fed no more).
 */
final class EntryState {
    /**
     * A skip of a replayed request or a cancellation by a replayed stop: reported after local
     * replay only if the job has no status of this sled's then (an earlier life may have
     * reported it already).
     */
    record Deferred(JobId job, Message report) {
    }

    private final long seq;
    private final NetworkId network;
    private final Replica replica;
    private final Optional<BoundaryRecord> snapshot;
    /** Signed ordering: the record as it stood at this entry (resumption and adjudication). */
    private final Optional<SignedRecord> signedSnapshot;
    private final Version arrival;
    private final long replayUntil;
    /** The replica's frontier once the entry's announcement and floor are out (set with the fold). */
    private Version birth;
    /** The fold this entry feeds: null until it is built. */
    private SledProjection fold;
    private Optional<Version> floor = Optional.empty();
    private boolean committedAboveFloor;
    private boolean drained;
    /** Whether the fold is fed: from when it is built until the next entry arrives. */
    private boolean folding;
    private final List<Deferred> deferredReports = new ArrayList<>();
    /** Signed ordering: sessions whose epoch reuse this entry reported (once each). */
    private final Set<SessionId> reuseReported = new HashSet<>();
    /** Jobs of this life whose start (and ending) this entry told again: once each. */
    private final Set<JobId> reannounced = new HashSet<>();
    /** Conflicts this entry reported, by position and refused successor: one report each. */
    private final Set<String> conflictsReported = new HashSet<>();
    /** Jobs this entry reported (or deferred) a skip for: one report per job per entry. */
    private final Set<JobId> skipReported = new HashSet<>();
    /** The gossip set fill threshold this entry reported (0, 80 or 100). */
    private int fillReported;
    /** The session whose chain fill this entry reported last, and the threshold reported for it. */
    private SessionId chainFillSession;
    private int chainFillReported;
    /** Requests this entry judged while walking back from a later one behind the head. */
    private final Set<JobId> walkedBack = new HashSet<>();
    /** The chain overflow already reported in this entry (its bounds are explicit, never a silent gap). */
    private long overflowReported;
    /** What this entry's sled may forget (issue 39); null when the sled does not settle. */
    private Settlement settlement;
    private final Marks marks = new Marks();

    /** What this entry's last watermark said, and whether news arrived since (issue 39). */
    static final class Marks {
        SessionId session;
        JobId head;
        boolean news;
        /** Sessions this entry said it is done with: those the fold remembers as ended (bounded with it). */
        final Set<SessionId> closed = new HashSet<>();
        /** A forgotten head this sled cannot leave (D-057), and for how many periods it stood there. */
        JobId stuckAt;
        int stuckFor;
    }

    /** What this entry's fold forgot, by memory, as last reported. */
    private final Map<String, Long> evictionsReported = new HashMap<>();
    private long evictionsTotalReported;

    /**
     * @param seq            the gossip node's sequence number of this entry
     * @param network        the universe entered
     * @param replica        its gossip set, as this sled holds it
     * @param snapshot       causal ordering: the record as it stands for this entry
     * @param signedSnapshot signed ordering: the record as it stood at this entry
     * @param arrival        the replica's frontier when the sled arrived, before its announcement
     * @param replayUntil    the checkpoint of the replica's newest message at entry: deliveries up
     *                       to it are local replay (not its size: forgetting leaves gaps)
     */
    EntryState(long seq, NetworkId network, Replica replica, Optional<BoundaryRecord> snapshot,
            Optional<SignedRecord> signedSnapshot, Version arrival, long replayUntil) {
        this.seq = seq;
        this.network = network;
        this.replica = replica;
        this.snapshot = snapshot;
        this.signedSnapshot = signedSnapshot;
        this.arrival = arrival;
        this.replayUntil = replayUntil;
    }

    /** The entry's fold is built, {@code birth} the replica's frontier then: it is fed from now on. */
    void startFolding(SledProjection fold, Version birth) {
        this.fold = fold;
        this.birth = birth;
        this.folding = true;
    }

    long seq() {
        return seq;
    }

    NetworkId network() {
        return network;
    }

    Replica replica() {
        return replica;
    }

    Optional<BoundaryRecord> snapshot() {
        return snapshot;
    }

    Optional<SignedRecord> signedSnapshot() {
        return signedSnapshot;
    }

    Version arrival() {
        return arrival;
    }

    Version birth() {
        return birth;
    }

    long replayUntil() {
        return replayUntil;
    }

    SledProjection fold() {
        return fold;
    }

    /** Whether this entry's fold is built and still fed (no newer entry arrived). */
    boolean folding() {
        return folding;
    }

    /** A newer entry arrived: this one's fold is fed no more. */
    void leave() {
        folding = false;
    }

    Optional<Version> floor() {
        return floor;
    }

    /** A floor is raised at {@code at} in this entry: no commit above it yet. */
    void raiseFloor(Version at) {
        floor = Optional.of(at);
        committedAboveFloor = false;
    }

    /** Whether a commit was made above this entry's floor. */
    boolean committedAboveFloor() {
        return committedAboveFloor;
    }

    /** A commit was reserved in this entry: it is above the floor if there is one. */
    void committed() {
        committedAboveFloor = floor.isPresent();
    }

    /** Whether local replay is over (every request met from now on is a live one). */
    boolean drained() {
        return drained;
    }

    /** Local replay is over. */
    void drain() {
        drained = true;
    }

    List<Deferred> deferredReports() {
        return deferredReports;
    }

    Set<SessionId> reuseReported() {
        return reuseReported;
    }

    /** The rack settled {@code jobs}: what this entry reported of them once is not needed again (issue 39). */
    void forgetSettled(Collection<JobId> jobs) {
        reannounced.removeAll(jobs);
        skipReported.removeAll(jobs);
        walkedBack.removeAll(jobs);
    }

    Set<JobId> reannounced() {
        return reannounced;
    }

    Set<String> conflictsReported() {
        return conflictsReported;
    }

    Set<JobId> skipReported() {
        return skipReported;
    }

    Set<JobId> walkedBack() {
        return walkedBack;
    }

    /** Records {@code reached} as reported if it is past the fill reported so far; whether it was. */
    boolean fillReached(int reached) {
        if (reached > fillReported) {
            fillReported = reached;
            return true;
        }
        return false;
    }

    /**
     * Records {@code reached} as reported for {@code session}'s chain if it is past what was
     * reported for that chain (a new session starts from 0); whether it was.
     */
    boolean chainFillReached(SessionId session, int reached) {
        if (!session.equals(chainFillSession)) {
            chainFillSession = session;
            chainFillReported = 0;
        }
        if (reached > chainFillReported) {
            chainFillReported = reached;
            return true;
        }
        return false;
    }

    /** Records {@code overflow} as reported if it is past the overflow reported so far; whether it was. */
    boolean overflowGrew(long overflow) {
        if (overflow > overflowReported) {
            overflowReported = overflow;
            return true;
        }
        return false;
    }

    void settle(Settlement s) {
        settlement = s;
    }

    /** The entry's settlement, or null when the sled does not settle. */
    Settlement settlement() {
        return settlement;
    }

    Marks marks() {
        return marks;
    }

    Map<String, Long> evictionsReported() {
        return evictionsReported;
    }

    /** Records {@code total} as the evictions reported; whether it differs from the last total. */
    boolean evictionsChanged(long total) {
        if (total == evictionsTotalReported) {
            return false;
        }
        evictionsTotalReported = total;
        return true;
    }
}
