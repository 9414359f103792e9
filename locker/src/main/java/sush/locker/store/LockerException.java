package sush.locker.store;

/** A store or open that did not happen, and why; the job it guarded must not run. */
public final class LockerException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Kind {
        /** A slot could not be read or written (fsync, rename, full disk, missing directory). */
        IO,
        /** The slots disagree or are unreadable: this life never writes them. */
        UNTRUSTED,
        /** Another locker holds the slots. */
        LOCKED,
        /** A store older than one already acknowledged (a straggler). */
        SUPERSEDED,
        /** Provisioning refused: the slots already hold something. */
        NOT_EMPTY
    }

    private final Kind kind;

    public LockerException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public LockerException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
