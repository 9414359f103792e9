package sush.pipeline.exec;

import java.time.Duration;
import java.util.Objects;

import sush.projections.job.JobLimits;

/**
 * What a job may use: wall time and output bytes (stdout and stderr together); past either the
 * whole process group is killed and the limit is reported. {@code stopGrace} is how long a
 * stopped job has between SIGTERM and SIGKILL.
 *
 * <p>{@code job} has two readings (D-031). In a sled's configuration it holds the maxima of the
 * limits a request may ask beyond wall time and output (CPU seconds, address space, file size;
 * 0 allows any), and {@link #maxima()} gives every maximum. In a launch it holds what the job
 * asked: output bytes per stream, and the CPU, address-space and file-size rlimits applied to
 * its processes.
 */
public record Limits(Duration wallTime, long outputBytes, Duration stopGrace, JobLimits job) {
    public static final Limits DEFAULT = new Limits(Duration.ofHours(1), 64L * 1024 * 1024, Duration.ofSeconds(5));

    public Limits {
        Objects.requireNonNull(job, "job");
        if (wallTime.isNegative() || wallTime.isZero() || outputBytes < 0 || stopGrace.isNegative()) {
            throw new IllegalArgumentException("limits must be positive");
        }
    }

    /** The sled's limits with no maximum beyond wall time and output. */
    public Limits(Duration wallTime, long outputBytes, Duration stopGrace) {
        this(wallTime, outputBytes, stopGrace, JobLimits.NONE);
    }

    /** Every maximum a request may ask (read as a sled's configuration). */
    public JobLimits maxima() {
        return new JobLimits(wallTime.toMillis(), outputBytes, job.cpuSeconds(), job.addressSpaceBytes(),
                job.fileSizeBytes());
    }

    /** These limits (a sled's) with other maxima for CPU, address space and file size. */
    public Limits withMaxima(long cpuSeconds, long addressSpaceBytes, long fileSizeBytes) {
        return new Limits(wallTime, outputBytes, stopGrace, new JobLimits(0, 0, cpuSeconds, addressSpaceBytes,
                fileSizeBytes));
    }

    /**
     * What a job asking {@code asked} is launched with: its own wall time when it asked one
     * (never above the sled's), the sled's output bound, and its per-stream output and rlimits.
     */
    public Limits forJob(JobLimits asked) {
        Duration wall = asked.wallTimeMs() > 0 ? Duration.ofMillis(Math.min(asked.wallTimeMs(), wallTime.toMillis()))
                : wallTime;
        return new Limits(wall, outputBytes, stopGrace, asked);
    }

    /** The per-stream output bound of a launched job: what it asked, else the sled's total. */
    public long streamBytes() {
        return job.outputBytes() > 0 ? Math.min(job.outputBytes(), outputBytes) : outputBytes;
    }
}
