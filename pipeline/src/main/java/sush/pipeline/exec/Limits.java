package sush.pipeline.exec;

import java.time.Duration;

/**
 * What a job may use: wall time and output bytes (stdout and stderr together); past either the
 * whole process group is killed and the limit is reported. {@code stopGrace} is how long a
 * stopped job has between SIGTERM and SIGKILL.
 */
public record Limits(Duration wallTime, long outputBytes, Duration stopGrace) {
    public static final Limits DEFAULT = new Limits(Duration.ofHours(1), 64L * 1024 * 1024, Duration.ofSeconds(5));

    public Limits {
        if (wallTime.isNegative() || wallTime.isZero() || outputBytes < 0 || stopGrace.isNegative()) {
            throw new IllegalArgumentException("limits must be positive");
        }
    }
}
