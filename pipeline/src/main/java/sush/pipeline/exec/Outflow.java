package sush.pipeline.exec;

import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import sush.projections.id.JobId;

/**
 * A streaming job's standard output on its way to its one client (issue 19): never stored on
 * the sled, at most {@value #MAX_CHUNKS} chunks of up to 64 KiB held here. When the client is
 * slow the queue fills and the job blocks on its own pipe (back-pressure); when the client goes
 * away the job is ended with an error saying so. Issue 35: it outlives its job until its one
 * client has read the end (or the sled lets it go: its wall time passed with no client), so an
 * output that fits here and ends before the client attaches is not lost.
 */
public final class Outflow {
    /** Chunks held at most (each at most the copier's 64 KiB buffer): 4 MiB. */
    public static final int MAX_CHUNKS = 64;
    private static final byte[] END = new byte[0];

    private final JobId job;
    private final BlockingQueue<byte[]> chunks = new ArrayBlockingQueue<>(MAX_CHUNKS);
    private final AtomicLong buffered = new AtomicLong();
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final AtomicBoolean gone = new AtomicBoolean();
    private final Runnable onGone;
    /** Runs once, when the client took the end or went away: the sled forgets this output then. */
    private volatile Runnable onDone = () -> { };
    private final AtomicBoolean done = new AtomicBoolean();

    Outflow(JobId job, Runnable onGone) {
        this.job = job;
        this.onGone = onGone;
    }

    public JobId job() {
        return job;
    }

    /** Takes the stream for one client; false when another client has it. */
    public boolean claim() {
        return claimed.compareAndSet(false, true);
    }

    /** Bytes held here now, waiting for the client. */
    public long buffered() {
        return buffered.get();
    }

    /**
     * The next chunk for the client, waiting up to {@code millis}; null on a timeout; an empty
     * array at the end of the output.
     */
    public byte[] next(long millis) throws InterruptedException {
        byte[] c = chunks.poll(millis, TimeUnit.MILLISECONDS);
        if (c != null && c != END) {
            buffered.addAndGet(-c.length);
        }
        if (c == END) {
            done();
            return new byte[0];
        }
        return c;
    }

    /** The client went away before the end: the job is ended, naming it. */
    public void clientGone() {
        if (gone.compareAndSet(false, true)) {
            chunks.clear();
            buffered.set(0);
            onGone.run();
        }
        done();
    }

    /** Whether a client has taken this output. */
    boolean claimed() {
        return claimed.get();
    }

    /** {@code r} runs once, when the client took the end or went away (or at once if it already did). */
    void onDone(Runnable r) {
        onDone = r;
        if (done.get()) {
            r.run();
        }
    }

    /** No client came for it in time: what it held is dropped, and the sled forgets it. */
    void abandon() {
        if (gone.compareAndSet(false, true)) {
            chunks.clear();
            buffered.set(0);
        }
        done();
    }

    private void done() {
        if (done.compareAndSet(false, true)) {
            onDone.run();
        }
    }

    boolean isGone() {
        return gone.get();
    }

    /** Hands a chunk on, blocking while the queue is full (the job waits for its client). */
    void put(byte[] buf, int n) throws InterruptedException {
        byte[] c = Arrays.copyOf(buf, n);
        while (!gone.get()) {
            if (chunks.offer(c, 100, TimeUnit.MILLISECONDS)) {
                buffered.addAndGet(n);
                return;
            }
        }
    }

    void end() throws InterruptedException {
        while (!gone.get() && !chunks.offer(END, 100, TimeUnit.MILLISECONDS)) {
            // The client still reads the last chunks.
        }
    }
}
