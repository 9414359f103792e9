package sush.gossip.sync;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Frames and bytes sent, summed over every link of a sled, in total and by frame kind. */
public final class Traffic {
    /** Frame kinds by their type byte (Frames); index 0 is any type not named there. */
    static final String[] KINDS = {"other", "preamble", "frontier", "messages", "end", "grant", "commit", "abort",
        "push", "claim"};

    private final AtomicLong frames = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLongArray kindFrames = new java.util.concurrent.atomic
            .AtomicLongArray(KINDS.length);
    private final AtomicLongArray kindBytes = new java.util.concurrent.atomic
            .AtomicLongArray(KINDS.length);

    void add(long frameCount, long byteCount) {
        frames.addAndGet(frameCount);
        bytes.addAndGet(byteCount);
    }

    /** One frame sent, counted by its kind (its type byte follows the 4-byte length). */
    void frame(byte[] frame) {
        int type = frame.length > 4 ? frame[4] & 0xFF : 0;
        int k = type < KINDS.length ? type : 0;
        kindFrames.incrementAndGet(k);
        kindBytes.addAndGet(k, frame.length);
    }

    /** The frame kinds' names, in the order {@link #framesOf} and {@link #bytesOf} take them. */
    public static List<String> kinds() {
        return List.of(KINDS);
    }

    public long framesOf(String kind) {
        return kindFrames.get(List.of(KINDS).indexOf(kind));
    }

    public long bytesOf(String kind) {
        return kindBytes.get(List.of(KINDS).indexOf(kind));
    }

    public long frames() {
        return frames.get();
    }

    public long bytes() {
        return bytes.get();
    }
}
