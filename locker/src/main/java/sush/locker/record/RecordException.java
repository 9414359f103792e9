package sush.locker.record;

/** Bytes that are not a boundary record this version can trust, and why. */
public final class RecordException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why the bytes were refused. */
    public enum Reason {
        /** Not CBOR, not the envelope, a missing or mistyped field, or not canonical. */
        MALFORMED,
        /** Written by a newer format: decoding it would be a guess. */
        NEWER_FORMAT,
        /** Valid, but another sled's record (a swapped drive). */
        OTHER_SLED,
        /** A record of the other session ordering ({@code causal} or {@code signed}) than the rack's. */
        ORDERING_MISMATCH
    }

    private final Reason reason;

    public RecordException(Reason reason, String message) {
        super(reason + ": " + message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
