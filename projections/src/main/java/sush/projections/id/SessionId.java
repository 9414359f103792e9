package sush.projections.id;

/** Identifies an operator's support session. */
public final class SessionId extends Id88 {
    public SessionId(byte[] bytes) {
        super(bytes);
    }

    /** Parses a codephrase (words joined by hyphens or spaces, any case). */
    public static SessionId parse(String codephrase) throws IdException {
        return new SessionId(Id88.parseBytes(codephrase));
    }
}
