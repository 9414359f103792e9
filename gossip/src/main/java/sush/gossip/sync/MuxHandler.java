package sush.gossip.sync;

/**
 * What a {@link LinkMux} asks of the sled that owns it. {@link #admits} and {@link #newSession}
 * are called while the mux holds its lock (they must not call back into any mux); the other
 * callbacks run after the mux released it (D-010).
 */
public interface MuxHandler {
    /** The peer named itself; false refuses it (the link is poisoned). */
    boolean admits(LinkMux mux, byte[] sender);

    /** A session for this link, on the sled's current replica with the intent that fits it. */
    SyncSession newSession(LinkMux mux);

    void onSessionDone(LinkMux mux, SyncOutcome outcome);

    void onSessionFailed(LinkMux mux, SyncException error);

    void onPush(LinkMux mux, Push push);

    /** The link is gone for good; the mux will not call again. */
    void onClosed(LinkMux mux);
}
