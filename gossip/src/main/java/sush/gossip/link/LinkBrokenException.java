package sush.gossip.link;

/** The link ended without a clean close: cut, poisoned by either side, or timed out. */
public final class LinkBrokenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LinkBrokenException(String message) {
        super(message);
    }
}
