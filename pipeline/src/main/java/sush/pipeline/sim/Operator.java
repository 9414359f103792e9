package sush.pipeline.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.ClientChain;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * The operator's side: the current session, and every session's chain kept by the client code
 * the CLI uses ({@link ClientChain}): where the next job goes, and what {@code session resume}
 * re-submits. It also keeps what the operator signed and sent over the whole run, which the
 * checkers compare with what the sleds did.
 */
final class Operator {
    SessionId session;
    Message.SessionStart start;
    String starter = "operator";
    int sessions;
    int commands;
    /**
     * Burns of positions other than the next free one were sent: sleds may have followed
     * different branches, and those left on another branch end their jobs only when the
     * session ends (at-most-once.md section 9). The calm tail then stops the session.
     */
    boolean strayBurns;
    /** Sessions stray burns were sent in: their chains may have two live branches. */
    final Set<SessionId> forked = new HashSet<>();
    /** Stray burns were sent in some session of the run (the operator may have moved on since). */
    boolean strayBurnsEver;
    /** Every session's chain, as the client keeps it. */
    final Map<SessionId, ClientChain> chains = new HashMap<>();
    /** Every request signed in each session, in the order signed (what Resend and StopJob pick from). */
    final Map<SessionId, List<SignedJob>> signed = new HashMap<>();
    /** Sessions the operator stopped. */
    final Set<SessionId> stopped = new HashSet<>();
    /** Jobs the operator stopped: they never end by themselves (EndJobs leaves them running). */
    final Set<JobId> stoppedJobs = new HashSet<>();
    /** Every session the operator started, in order. */
    final List<SessionId> all = new ArrayList<>();
    /** Signed ordering: the current session's grant, the first one, and every grant issued by session. */
    SignedGrant grant;
    SignedGrant firstGrant;
    final Map<SessionId, SignedGrant> grants = new LinkedHashMap<>();
    /** The first session of the run: its start (what ReplayStart replays under the causal ordering). */
    Message.SessionStart firstStart;

    /** Each signed job's place: {session's place among those started (from 1), job's place in it (from 0)}. */
    final Map<JobId, int[]> positions = new HashMap<>();
    /** Every job the operator signed and sent, in every session. */
    final List<SignedJob> allJobs = new ArrayList<>();
    /** Every burn the operator sent, in every session. */
    final List<Message.JobSkip> allBurns = new ArrayList<>();
    /** Violations the operator's side sees: a position given to two requests. */
    final List<String> clientViolations = new ArrayList<>();
    /** Every request signed, by position: a position names one request. */
    final Map<JobId, SignedJob> signedAt = new HashMap<>();

    List<SignedJob> jobs() {
        return session == null ? List.of() : signed.getOrDefault(session, List.of());
    }
}
