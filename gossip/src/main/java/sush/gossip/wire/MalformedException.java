package sush.gossip.wire;

/** Bytes from outside that do not decode to a canonical value; the reader changed nothing. */
public final class MalformedException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why the bytes were refused. */
    public enum Reason {
        /** The input ended inside a value. */
        TRUNCATED,
        /** Bytes remained after the value. */
        TRAILING_BYTES,
        /** A valid value, but not in its one canonical encoding. */
        NON_CANONICAL,
        /** Over a declared size bound. */
        TOO_LARGE,
        /** A number outside its allowed range. */
        OUT_OF_RANGE,
        /** Structurally impossible (bad tag, bad shape, bad magic). */
        INVALID
    }

    private final Reason reason;

    public MalformedException(Reason reason, String message) {
        super(reason + ": " + message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
