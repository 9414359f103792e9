package sush.projections.message;

/** A payload that is not a well-formed message of a known format; the fold counts and skips it. */
public final class MessageException extends Exception {
    private static final long serialVersionUID = 1L;

    public MessageException(String message) {
        super(message);
    }

    public MessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
