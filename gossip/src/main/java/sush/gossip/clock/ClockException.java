package sush.gossip.clock;

/** A clock operation that has no result for these operands. */
public final class ClockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Which operation was refused. */
    public enum Kind {
        /** Joining two identities that share part of the interval. */
        OVERLAPPING_IDS,
        /** Ticking with the empty identity, which owns nothing. */
        ANONYMOUS_TICK,
        /** A counter would pass {@link Version#MAX_COUNTER}. */
        COUNTER_OVERFLOW
    }

    private final Kind kind;

    public ClockException(Kind kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
