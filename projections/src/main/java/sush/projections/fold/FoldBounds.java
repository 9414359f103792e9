package sush.projections.fold;

/**
 * The bounds of one sled's memories of its causal stream, each with its unit in its name. The
 * daemon runs {@link #DEFAULTS}; the simulator scales them down so that every eviction happens
 * in short schedules, and what an operator relies on must survive them (issue 34).
 *
 * @param jobSessions   job requests whose session is remembered (who may stop the job)
 * @param sessions      sessions remembered (started or granted: their starters and places)
 * @param sessionEndings sessions remembered as ended (an id and why): a late request of one ends at once
 * @param chainPositions jobs, burns and walked positions remembered for one session's chain
 * @param earlyMessages requests held for sessions whose start or grant has not arrived
 * @param sessionStops  stops remembered for sessions not granted here (the signed ordering)
 * @param jobStops      starters' stops kept until they are honoured: of requests not folded yet,
 *                      of jobs whose place is not known yet, of commits not launched yet
 */
public record FoldBounds(int jobSessions, int sessions, int sessionEndings, int chainPositions, int earlyMessages,
        int sessionStops, int jobStops) {
    /** What a sled runs with. */
    public static final FoldBounds DEFAULTS = new FoldBounds(SledProjection.MAX_JOB_SESSIONS,
            SessionProjection.MAX_SESSIONS, SledProjection.MAX_ENDED_SESSIONS, ChainProjection.MAX_POSITIONS,
            SledProjection.MAX_EARLY_MESSAGES,
            OrderedSessionProjection.MAX_PENDING_STOPS, 4096);

    public FoldBounds {
        if (jobSessions < 1 || sessions < 1 || sessionEndings < 1 || chainPositions < 1 || earlyMessages < 1 || sessionStops < 1
                || jobStops < 1) {
            throw new IllegalArgumentException("every bound is at least 1: " + this);
        }
    }
}
