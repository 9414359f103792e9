package sush.projections.targets;

/** A target text that does not parse; nothing was created. */
public final class TargetException extends Exception {
    private static final long serialVersionUID = 1L;

    public TargetException(String message) {
        super(message);
    }
}
