package sush.ops.daemon;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import sush.pipeline.sled.SledEvent;
import sush.projections.fold.JobStatus;
import sush.projections.id.JobId;
import sush.projections.message.Message;

/**
 * Where a sled's time goes, job by job ({@code sush daemon --trace FILE}): one line per stage a
 * job passes on this sled, {@code NANOS STAGE JOB SLED}, where NANOS is the JVM's monotonic clock
 * (on Linux CLOCK_MONOTONIC, so lines of every daemon of one machine compare) taken as the sled
 * emits the event, on the thread that emits it. Stages: {@code requested} (the request folded),
 * {@code screened} (admission's verdict), {@code committed} (the boundary record on every slot),
 * {@code launched} (the process started), {@code ended} (the process exited and its pipes were
 * drained), {@code reported} (this sled's status gossiped), {@code seen} (a sled's status, SLED,
 * folded here). Job ids only: no command text. For measurements ({@code ./bench.sh e2e}) and
 * debugging; a failed write stops the trace, never the sled.
 */
public final class StageTrace implements AutoCloseable {
    private final BufferedWriter out;
    private final String me;
    private boolean failed;

    private StageTrace(BufferedWriter out, String me) {
        this.out = out;
        this.me = me;
    }

    /** Appends to {@code file} (created 0600 when missing). */
    public static StageTrace open(Path file, String me) throws IOException {
        if (!Files.exists(file)) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
        }
        return new StageTrace(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.APPEND), me);
    }

    /** Records {@code e}'s stage, if it is one of a job's. */
    public void on(SledEvent e) {
        long now = System.nanoTime();
        Optional<String> line = line(e).map(l -> now + " " + l);
        line.ifPresent(this::write);
    }

    private Optional<String> line(SledEvent e) {
        if (e instanceof SledEvent.Requested) {
            return stage("requested", ((SledEvent.Requested) e).job(), me);
        } else if (e instanceof SledEvent.Screened) {
            return stage("screened", ((SledEvent.Screened) e).job(), me);
        } else if (e instanceof SledEvent.Committed) {
            return stage("committed", ((SledEvent.Committed) e).job(), me);
        } else if (e instanceof SledEvent.Launched) {
            return stage("launched", ((SledEvent.Launched) e).job(), me);
        } else if (e instanceof SledEvent.Ended) {
            return stage("ended", ((SledEvent.Ended) e).job(), me);
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.JobStopped) {
            return stage("reported", ((Message.JobStopped) ((SledEvent.Gossiped) e).message()).job(), me);
        } else if (e instanceof SledEvent.StatusChanged) {
            SledEvent.StatusChanged c = (SledEvent.StatusChanged) e;
            return c.status() == JobStatus.STOPPED ? stage("seen", c.job(), c.baseboard())
                    : Optional.empty();
        }
        return Optional.empty();
    }

    private static Optional<String> stage(String stage, JobId job, String sled) {
        return Optional.of(stage + " " + job.codephrase() + " " + sled);
    }

    private synchronized void write(String line) {
        if (failed) {
            return;
        }
        try {
            out.write(line);
            out.newLine();
            out.flush();
        } catch (IOException e) {
            failed = true;
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            // Nothing more to keep.
        }
    }
}
