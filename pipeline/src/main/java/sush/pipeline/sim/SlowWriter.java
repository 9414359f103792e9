package sush.pipeline.sim;

import java.util.concurrent.TimeUnit;

import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The simulator's boundary writer: the virtual clock, with every task taking effect a fixed time
 * after it is handed over, as a store to two M.2s takes its fsyncs. Stores therefore queue up
 * behind each other and can be taken together (D-036), and a crash can fall while some wait.
 * Delayed tasks are refused, as by any scheduler without a clock: the writer asks for none.
 */
final class SlowWriter implements Scheduler {
    /** How long after its hand-over a store runs (a few fsyncs of a real M.2). */
    static final long LATENCY_MILLIS = 2;

    private final Scheduler time;

    SlowWriter(Scheduler time) {
        this.time = time;
    }

    @Override
    public Disposable schedule(Runnable task) {
        return time.schedule(task, LATENCY_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public Worker createWorker() {
        Worker inner = time.createWorker();
        return new Worker() {
            @Override
            public Disposable schedule(Runnable task) {
                return inner.schedule(task, LATENCY_MILLIS, TimeUnit.MILLISECONDS);
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
