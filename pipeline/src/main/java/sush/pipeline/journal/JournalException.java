package sush.pipeline.journal;

/** A journal that cannot be read or written as asked, and why. */
public final class JournalException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Kind {
        /** An encrypted record did not authenticate: the wrong key, or tampered bytes. */
        WRONG_KEY,
        /** The journal is encrypted and no key was given, or a key was given for a plain one. */
        KEY_MISMATCH,
        /** A record that does not parse. */
        CORRUPT,
        /**
         * A record that does not read though records before it did with this key: damaged (a
         * torn write when the disk filled or the sled crashed mid-write, or altered bytes).
         */
        DAMAGED,
        /** The key file is not 32 bytes (raw or 64 hex characters). */
        BAD_KEY
    }

    private final Kind kind;

    public JournalException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
