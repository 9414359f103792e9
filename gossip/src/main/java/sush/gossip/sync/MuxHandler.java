package sush.gossip.sync;

/** What a {@link LinkMux} asks of the sled that owns it. Called without the mux's lock held. */
public interface MuxHandler {
    /** The peer named itself; false refuses it (the link is poisoned). */
    boolean admits(LinkMux mux, byte[] sender);

    /** A session for this link, on the sled's current replica with the intent that fits it. */
    SyncSession newSession();

    void onSessionDone(LinkMux mux, SyncOutcome outcome);

    void onSessionFailed(LinkMux mux, SyncException error);

    void onPush(LinkMux mux, Push push);

    /** The link is gone for good; the mux will not call again. */
    void onClosed(LinkMux mux);
}
