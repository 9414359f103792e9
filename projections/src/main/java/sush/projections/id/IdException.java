package sush.projections.id;

/** Text or bytes that are not a valid id; nothing was created. */
public final class IdException extends Exception {
    private static final long serialVersionUID = 1L;

    public IdException(String message) {
        super(message);
    }
}
