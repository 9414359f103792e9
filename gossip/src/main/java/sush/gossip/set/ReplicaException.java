package sush.gossip.set;

/** A request the replica refuses; the replica is unchanged. */
public final class ReplicaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why it was refused. */
    public enum Kind {
        /** The set holds {@link Replica#MAX_MESSAGES} already. */
        SET_FULL,
        /** A payload over {@link Replica#MAX_PAYLOAD_BYTES}. */
        PAYLOAD_TOO_LARGE,
        /** A bootstrapping replica owns no identity and cannot send or provide. */
        NO_IDENTITY,
        /** Adopting a bootstrap grant into a replica that already has history. */
        NOT_A_NEWCOMER,
        /** The replica moved to another universe since the operation began. */
        UNIVERSE_CHANGED,
        /** The sled's keeper could not keep the identity's bookmark (D-053): nothing was sent or given. */
        IDENTITY_NOT_KEPT
    }

    private final Kind kind;

    public ReplicaException(Kind kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
