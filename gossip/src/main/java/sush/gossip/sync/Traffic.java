package sush.gossip.sync;

import java.util.concurrent.atomic.AtomicLong;

/** Frames and bytes sent, summed over every link of a sled. */
public final class Traffic {
    private final AtomicLong frames = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    void add(long frameCount, long byteCount) {
        frames.addAndGet(frameCount);
        bytes.addAndGet(byteCount);
    }

    public long frames() {
        return frames.get();
    }

    public long bytes() {
        return bytes.get();
    }
}
