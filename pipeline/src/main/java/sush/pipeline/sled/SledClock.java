package sush.pipeline.sled;

/**
 * The clocks a sled reads for what it shows operators: its wall clock (the start and end of a
 * job, labelled as this sled's clock) and a monotonic one (a job's duration). Neither orders
 * anything. Injected: the daemon passes {@link #system()}; the simulator and tests pass none,
 * so their messages stay byte for byte reproducible.
 */
public interface SledClock {
    /** Milliseconds since the epoch by this sled's wall clock. */
    long wallMillis();

    /** A monotonic reading in nanoseconds (differences only). */
    long monotonicNanos();

    /** The host's clocks. */
    static SledClock system() {
        return new SledClock() {
            @Override
            public long wallMillis() {
                return System.currentTimeMillis();
            }

            @Override
            public long monotonicNanos() {
                return System.nanoTime();
            }
        };
    }
}
