package sush.pipeline.journal;

import net.openhft.chronicle.core.time.TimeProvider;

/**
 * The journal's clock (issue 38): the wall clock, but never before the newest hour the journal
 * already holds nor before any time it gave. Chronicle files records by the hour of its clock and
 * closes an hour once a later one exists: a daemon restarted with its clock a day ahead wrote
 * that day's hour, and with the clock set right again every append failed
 * ({@code WriteAfterEOFException}) until the day had passed. The journal is ordered by its own
 * records, never by a clock; a clock that went back appends to the newest hour until it catches up.
 */
final class NeverBack implements TimeProvider {
    private final TimeProvider wall;
    private long floor;

    NeverBack(TimeProvider wall) {
        this.wall = wall;
    }

    /** No time before {@code millis} (the start of the newest hour found on disk). */
    synchronized void atLeast(long millis) {
        floor = Math.max(floor, millis);
    }

    @Override
    public synchronized long currentTimeMillis() {
        floor = Math.max(floor, wall.currentTimeMillis());
        return floor;
    }

    @Override
    public long currentTimeMicros() {
        return currentTimeMillis() * 1_000;
    }

    @Override
    public long currentTimeNanos() {
        return currentTimeMillis() * 1_000_000;
    }
}
