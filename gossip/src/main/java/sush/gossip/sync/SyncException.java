package sush.gossip.sync;

/** Why a sync session failed. The link is poisoned; the replica is unchanged unless noted. */
public class SyncException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** A frame that does not decode, or a field out of bounds. */
        MALFORMED_FRAME,
        /** A frame whose declared length is over {@link Frames#MAX_FRAME_BYTES}. */
        FRAME_TOO_LARGE,
        /** The stream ended inside a frame. */
        TRUNCATED,
        /** A valid frame the protocol does not allow in this state. */
        UNEXPECTED_FRAME,
        /** The peer does not speak this protocol (magic or version). */
        UNSUPPORTED_PROTOCOL,
        /** The peers are in different universes ({@link NetworkMismatchException}). */
        NETWORK_MISMATCH,
        /** Two bootstrapping replicas met: neither has anything to give. */
        BOTH_BOOTSTRAPPING,
        /** A newcomer already bootstraps over another link; nothing was forked. */
        BOOTSTRAP_BUSY,
        /** A newcomer refused a provider whose universe loses to one it already saw. */
        INFERIOR_UNIVERSE,
        /** A bootstrap claimant that already holds history. */
        CLAIMANT_HAS_HISTORY,
        /** The peer's supply contradicts its frontier (a message above it, one we hold, a gap). */
        INCONSISTENT_SUPPLY,
        /** The replica refused the change (full set, universe changed meanwhile). */
        REPLICA_REFUSED,
        /** The link broke or closed before the session ended. */
        LINK_BROKEN,
        /** The peer reported a failure of its own. */
        PEER_ABORTED
    }

    private final Kind kind;

    public SyncException(Kind kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    public SyncException(Kind kind, String message, Throwable cause) {
        super(kind + ": " + message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
