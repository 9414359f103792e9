package sush.pipeline.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import sush.pipeline.disk.DiskReserve;

/**
 * Moves one job's output from its pipes: into its files within the shared output limit, each
 * stream's own limit and the disk's reserve (issue 35), or to its streaming client within the
 * stream's limit; shown on its terminal as it passes. Past a limit it keeps draining, so the job
 * never blocks, and has the job killed with {@link Ending.Cause#OUTPUT_LIMIT}.
 */
final class OutputPump {
    /** Each copier thread's buffer, reused job after job (a fresh 64 KiB per stream per job was garbage). */
    static final int COPY_BUFFER_BYTES = 64 * 1024;
    private static final ThreadLocal<byte[]> COPY_BUFFER = ThreadLocal.withInitial(() -> new byte[COPY_BUFFER_BYTES]);

    private final Limits limits;
    private final DiskReserve disk;
    /** Kills the job, for the cause given (the first cause given is the ending's). */
    private final Consumer<Ending.Cause> kill;
    /** Bytes read from both streams, counted against the shared output limit. */
    private final AtomicLong written = new AtomicLong();

    OutputPump(Limits limits, DiskReserve disk, Consumer<Ending.Cause> kill) {
        this.limits = limits;
        this.disk = disk;
        this.kill = kill;
    }

    /** A streaming job's stdout to its client: hashed and counted like a kept stream, within its limits. */
    void stream(InputStream in, Outflow flow, KeptStream s) {
        byte[] buf = COPY_BUFFER.get();
        long perStream = limits.streamBytes();
        long sent = 0;
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                int keep = (int) Math.min(n, Math.max(0, perStream - sent));
                if (keep > 0 && !flow.isGone()) {
                    s.count(buf, keep);
                    flow.put(buf, keep);
                    sent += keep;
                }
                if (keep < n) {
                    kill.accept(Ending.Cause.OUTPUT_LIMIT);
                }
            }
        } catch (IOException ioe) {
            // The pipe broke because the job was killed: what was sent is counted.
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            // The client always learns where the output ends (it waits for nothing after it);
            // with no client, this waits until one comes or the output is abandoned.
            flow.end();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Copies one stream to its file within the shared output limit and the stream's own
     * (what the job asked); drains past them.
     */
    void copy(InputStream in, FileChannel file, KeptStream s, Terminal shown) {
        byte[] buf = COPY_BUFFER.get();
        long perStream = limits.streamBytes();
        long mine = 0;
        try (in; file) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                long before = written.getAndAdd(n);
                long room = Math.max(0, Math.min(limits.outputBytes() - before, perStream - mine));
                mine += n;
                if (shown != null) {
                    shown.shown(buf, n);
                }
                int keep = (int) Math.min(n, room);
                if (keep > 0 && !disk.outputRoom(keep)) {
                    s.refuse(disk.shortage().orElse("no-space: the output would eat into the " + disk));
                }
                if (keep > 0 && !s.keep(file, buf, keep)) {
                    // A full output disk: stop keeping, keep draining so the job never blocks.
                    kill.accept(Ending.Cause.OUTPUT_LIMIT);
                }
                if (keep < n) {
                    kill.accept(Ending.Cause.OUTPUT_LIMIT);
                }
            }
        } catch (IOException ioe) {
            // The pipe broke because the job was killed: what was read is kept.
        }
    }
}
