package sush.pipeline.sim;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The simulator's boundary writer: the virtual clock, with every task taking effect some time
 * after it is handed over, as a store to two M.2s takes its fsyncs ({@link #LATENCY_MILLIS}, or
 * what a slow disk takes: the schedule's {@code SlowDisk} fault). Stores therefore queue up
 * behind each other and can be taken together (D-036), a crash can fall while some wait, and an
 * operator's stop can arrive between a job's commit and its launch. Delayed tasks are refused, as
 * by any scheduler without a clock: the writer asks for none.
 */
final class SlowWriter implements Scheduler {
    /** How long after its hand-over a store runs (a few fsyncs of a real M.2). */
    static final long LATENCY_MILLIS = 2;

    private final Scheduler time;
    private final LongSupplier latencyMillis;

    SlowWriter(Scheduler time) {
        this(time, () -> LATENCY_MILLIS);
    }

    /** A writer whose every task takes what {@code latencyMillis} says at its hand-over. */
    SlowWriter(Scheduler time, LongSupplier latencyMillis) {
        this.time = time;
        this.latencyMillis = latencyMillis;
    }

    @Override
    public Disposable schedule(Runnable task) {
        return time.schedule(task, latencyMillis.getAsLong(), TimeUnit.MILLISECONDS);
    }

    @Override
    public Worker createWorker() {
        Worker inner = time.createWorker();
        return new Worker() {
            @Override
            public Disposable schedule(Runnable task) {
                return inner.schedule(task, latencyMillis.getAsLong(), TimeUnit.MILLISECONDS);
            }

            @Override
            public void dispose() {
                inner.dispose();
            }

            @Override
            public boolean isDisposed() {
                return inner.isDisposed();
            }
        };
    }
}
