package sush.gossip.sync;

/** Test access to the wire's bounds from other packages. */
public final class FramesAccess {
    private FramesAccess() {
    }

    public static int maxFirstFrameBytes() {
        return Frames.MAX_FIRST_FRAME_BYTES;
    }
}
