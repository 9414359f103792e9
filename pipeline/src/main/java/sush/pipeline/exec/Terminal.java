package sush.pipeline.exec;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;
import sush.projections.id.JobId;

/**
 * An interactive job's terminal as clients see it (issue 19): what it shows, from the last
 * {@value #PLAYBACK_BYTES} bytes on, to every attached client; keyboard input and window size
 * in. A client whose queue of {@value #CLIENT_QUEUE} chunks fills is dropped, never the job;
 * the job's output is recorded and hashed as any job's, whoever is attached.
 */
public final class Terminal {
    /** What a client attaching sees of what came before it. */
    public static final int PLAYBACK_BYTES = 64 * 1024;
    /** Chunks queued for one client before it is dropped. */
    public static final int CLIENT_QUEUE = 256;

    private final JobId job;
    private final Pty pty;
    private final byte[] ring = new byte[PLAYBACK_BYTES];
    private long total;
    private boolean ended;
    private final List<Sinks.Many<byte[]>> clients = new CopyOnWriteArrayList<>();

    Terminal(JobId job, Pty pty) {
        this.job = job;
        this.pty = pty;
    }

    public JobId job() {
        return job;
    }

    /** A client lagging past its queue. */
    public static final class Lagging extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Lagging() {
            super("the client fell " + CLIENT_QUEUE + " chunks behind the terminal and was dropped (the job goes on)");
        }
    }

    /**
     * One client's view: the recent output, then everything after it as it comes; completes
     * when the terminal closes (the job ended), errors with {@link Lagging} when it lags.
     */
    public Flux<byte[]> attach() {
        Sinks.Many<byte[]> sink = Sinks.many().unicast().onBackpressureBuffer(Queues.<byte[]>get(CLIENT_QUEUE).get());
        synchronized (this) {
            byte[] recent = recent();
            if (recent.length > 0) {
                sink.tryEmitNext(recent);
            }
            if (ended) {
                sink.tryEmitComplete();
            } else {
                clients.add(sink);
            }
        }
        return sink.asFlux().doFinally(s -> clients.remove(sink));
    }

    /** The last {@value #PLAYBACK_BYTES} bytes shown (fewer at the start). */
    public synchronized byte[] recent() {
        int n = (int) Math.min(total, ring.length);
        byte[] out = new byte[n];
        int start = (int) ((total - n) % ring.length);
        int first = Math.min(n, ring.length - start);
        System.arraycopy(ring, start, out, 0, first);
        System.arraycopy(ring, 0, out, first, n - first);
        return out;
    }

    /** Whether the job's terminal has closed. */
    public synchronized boolean ended() {
        return ended;
    }

    /** How many clients are attached now. */
    public int attached() {
        return clients.size();
    }

    synchronized void shown(byte[] buf, int n) {
        for (int i = 0; i < n; i++) {
            ring[(int) ((total + i) % ring.length)] = buf[i];
        }
        total += n;
        byte[] chunk = Arrays.copyOf(buf, n);
        for (Sinks.Many<byte[]> c : clients) {
            if (c.tryEmitNext(chunk).isFailure()) {
                clients.remove(c);
                c.tryEmitError(new Lagging());
            }
        }
    }

    synchronized void end() {
        ended = true;
        for (Sinks.Many<byte[]> c : clients) {
            c.tryEmitComplete();
        }
        clients.clear();
    }

    /** Types {@code bytes} on the job's keyboard. */
    public void input(byte[] bytes) throws IOException {
        if (ended()) {
            throw new IOException("the job's terminal has closed");
        }
        pty.write(bytes);
    }

    /** Resizes the job's window (its foreground programs get SIGWINCH). */
    public void resize(int rows, int cols) throws IOException {
        if (ended()) {
            throw new IOException("the job's terminal has closed");
        }
        pty.resize(rows, cols);
    }

    /** The window: rows, columns. */
    public int[] size() throws IOException {
        return pty.size();
    }
}
