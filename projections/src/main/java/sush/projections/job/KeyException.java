package sush.projections.job;

/** A key that cannot be read or used: bad PEM, unsupported algorithm, wrong kind of key. */
public final class KeyException extends Exception {
    private static final long serialVersionUID = 1L;

    public KeyException(String message) {
        super(message);
    }

    public KeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
