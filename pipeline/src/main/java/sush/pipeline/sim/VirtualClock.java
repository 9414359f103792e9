package sush.pipeline.sim;

import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The simulator's virtual time (issue 37: the test library's scheduler left the product jar). A
 * {@link Scheduler} whose clock moves only when the simulation says so: tasks wait in one queue
 * ordered by due time, then by the order they were scheduled (a periodic task rejoins the queue
 * as newly scheduled each time it ran; a task scheduled from outside a run is run at once when
 * due), and {@link #advanceTime()} runs
 * every task due now (those they schedule for now included), {@link #advanceTimeBy} every task
 * due up to the new time, each at its own due time. One thread drives it; nothing here reads a
 * real clock, so a seed replays the same schedule.
 */
final class VirtualClock implements Scheduler {
    /** A task in the queue; {@code period} is zero for a task that runs once. */
    private static final class Task implements Comparable<Task>, Disposable {
        final Runnable run;
        long seq;
        final long period;
        final Disposable owner;
        long due;
        final AtomicBoolean cancelled = new AtomicBoolean();

        Task(Runnable run, long due, long seq, long period, Disposable owner) {
            this.run = run;
            this.due = due;
            this.seq = seq;
            this.period = period;
            this.owner = owner;
        }

        @Override
        public int compareTo(Task o) {
            int byTime = Long.compare(due, o.due);
            return byTime != 0 ? byTime : Long.compare(seq, o.seq);
        }

        @Override
        public void dispose() {
            cancelled.set(true);
        }

        @Override
        public boolean isDisposed() {
            return cancelled.get();
        }
    }

    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    /** The clock. */
    private long nanos;
    /** Time given by {@link #advanceTimeBy} and not yet run through. */
    private long ahead;
    private long seq;
    /** Runs of {@link #drain} asked for: only the first runs tasks, the others make it go round again. */
    private int draining;
    private volatile boolean disposed;

    /** A clock at zero with nothing scheduled. */
    static VirtualClock create() {
        return new VirtualClock();
    }

    private VirtualClock() {
    }

    /** Runs every task due at the current time, and those they schedule for it. */
    void advanceTime() {
        advanceTimeBy(Duration.ZERO);
    }

    /** Moves the clock by {@code d}, running each task due on the way at its due time. */
    void advanceTimeBy(Duration d) {
        synchronized (this) {
            ahead += d.toNanos();
        }
        drain();
    }

    /**
     * Runs the tasks due by now plus the time given, in order. A task scheduled while tasks run
     * joins this run when it is due by then; a drain asked for while one runs makes that one go
     * round again instead. A task given no delay is due at time zero: it comes before every task
     * already due, in the order such tasks were scheduled.
     */
    private void drain() {
        synchronized (this) {
            if (draining++ != 0) {
                return;
            }
        }
        int missed = 1;
        while (true) {
            long target;
            synchronized (this) {
                target = nanos + ahead;
                ahead = 0;
            }
            while (true) {
                Task t;
                synchronized (this) {
                    t = queue.peek();
                    if (t == null || t.due > target) {
                        break;
                    }
                    queue.poll();
                    if (t.due != 0) {
                        nanos = t.due;
                    }
                }
                if (!t.cancelled.get() && !t.owner.isDisposed()) {
                    t.run.run();
                    if (t.period > 0 && !t.cancelled.get() && !t.owner.isDisposed()) {
                        synchronized (this) {
                            t.due = nanos + t.period;
                            t.seq = seq++;
                            queue.add(t);
                        }
                    }
                }
            }
            synchronized (this) {
                nanos = target;
                draining -= missed;
                missed = draining;
                if (missed == 0) {
                    return;
                }
            }
        }
    }

    private Task enqueue(Runnable r, boolean now, long delay, long period, TimeUnit unit, Disposable owner) {
        Task t;
        synchronized (this) {
            if (disposed || owner.isDisposed()) {
                throw new RejectedExecutionException("the virtual clock is disposed");
            }
            t = new Task(r, now ? 0 : nanos + unit.toNanos(delay), seq++, unit.toNanos(period), owner);
            queue.add(t);
        }
        drain();
        return t;
    }

    @Override
    public long now(TimeUnit unit) {
        synchronized (this) {
            return unit.convert(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public Disposable schedule(Runnable task) {
        return enqueue(task, true, 0, 0, TimeUnit.NANOSECONDS, this);
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        return enqueue(task, false, delay, 0, unit, this);
    }

    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        return enqueue(task, false, initialDelay, period, unit, this);
    }

    @Override
    public Worker createWorker() {
        return new ClockWorker();
    }

    @Override
    public void dispose() {
        disposed = true;
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    /** A worker of the clock: its tasks share the clock's queue and end with it. */
    private final class ClockWorker implements Worker {
        private volatile boolean gone;

        @Override
        public Disposable schedule(Runnable task) {
            return enqueue(task, true, 0, 0, TimeUnit.NANOSECONDS, this);
        }

        @Override
        public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
            return enqueue(task, false, delay, 0, unit, this);
        }

        @Override
        public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
            return enqueue(task, false, initialDelay, period, unit, this);
        }

        @Override
        public void dispose() {
            gone = true;
        }

        @Override
        public boolean isDisposed() {
            return gone || disposed;
        }
    }
}
