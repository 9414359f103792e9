package sush.pipeline.sled;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;

/**
 * The one boundary writer of a sled: stores tickets in the order they are submitted, on its own
 * single-threaded scheduler, so a straggler never lands after a newer record and the sled's
 * state machine never waits on an fsync.
 */
final class BoundaryWriter {
    private final Locker<?> locker;
    private final Scheduler.Worker worker;

    BoundaryWriter(Locker<?> locker, Scheduler writer) {
        this.locker = locker;
        this.worker = writer.createWorker();
    }

    /**
     * Emits the microseconds the store took once {@code t} is on every slot; errors with the
     * {@link LockerException} otherwise.
     */
    Mono<Long> store(Locker.Ticket<?> t) {
        return Mono.create(sink -> worker.schedule(() -> {
            try {
                long t0 = System.nanoTime();
                locker.store(t);
                sink.success((System.nanoTime() - t0) / 1_000);
            } catch (LockerException | RuntimeException e) {
                // Whatever failed, the store did not complete: the job it guards must not run.
                sink.error(e);
            }
        }));
    }

    /** Completes once every store submitted before it has finished (section 3, entry step 1). */
    Mono<Void> drain() {
        return Mono.create(sink -> worker.schedule(sink::success));
    }

    void dispose() {
        worker.dispose();
    }
}
