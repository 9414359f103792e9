package sush.pipeline.sled;

import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;

/**
 * The one boundary writer of a sled: stores tickets in the order they are submitted, on its own
 * single-threaded scheduler, so a straggler never lands after a newer record and the sled's
 * state machine never waits on an fsync.
 *
 * <p>Tickets that queued up while a store was in progress are written as one (D-036): every
 * record is built on the newest one before it ({@link Locker#reserve}), so the newest queued
 * ticket holds everything the older ones hold, and once it is on every slot each of them is
 * acknowledged. A crash before that store completes leaves the record from before the batch,
 * the state a crash before the batch's first store would have left, and nothing in the batch
 * was acknowledged, so no job of it launched. A failed store fails every ticket of its batch.
 */
final class BoundaryWriter {
    private final Locker<?> locker;
    private final Scheduler.Worker worker;
    /** Submitted and not yet taken by the worker, in submission order; a null ticket is a drain. */
    private final List<Pending> queue = new ArrayList<>();
    private long coalesced;

    private record Pending(Locker.Ticket<?> ticket, MonoSink<Long> sink) {
    }

    BoundaryWriter(Locker<?> locker, Scheduler writer) {
        this.locker = locker;
        this.worker = writer.createWorker();
    }

    /**
     * Emits the microseconds the store took once {@code t} (or a newer ticket that holds it) is on
     * every slot; errors with the {@link LockerException} otherwise.
     */
    Mono<Long> store(Locker.Ticket<?> t) {
        return Mono.create(sink -> submit(new Pending(t, sink)));
    }

    /** Completes once every store submitted before it has finished (section 3, entry step 1). */
    Mono<Void> drain() {
        return Mono.<Long>create(sink -> submit(new Pending(null, sink))).then();
    }

    private void submit(Pending p) {
        synchronized (queue) {
            queue.add(p);
        }
        worker.schedule(this::writeQueued);
    }

    /** Takes everything queued and stores its newest ticket; a no-op when an earlier run took it all. */
    private void writeQueued() {
        List<Pending> batch;
        synchronized (queue) {
            if (queue.isEmpty()) {
                return;
            }
            batch = new ArrayList<>(queue);
            queue.clear();
        }
        Locker.Ticket<?> newest = null;
        int tickets = 0;
        for (Pending p : batch) {
            if (p.ticket() != null) {
                tickets++;
                if (newest == null || p.ticket().seq() > newest.seq()) {
                    newest = p.ticket();
                }
            }
        }
        long micros = 0;
        try {
            if (newest != null) {
                long t0 = System.nanoTime();
                locker.store(newest);
                micros = (System.nanoTime() - t0) / 1_000;
                synchronized (queue) {
                    coalesced += tickets - 1;
                }
            }
        } catch (LockerException | RuntimeException e) {
            // Whatever failed, the store did not complete: the jobs it guards must not run.
            for (Pending p : batch) {
                if (p.ticket() != null) {
                    p.sink().error(e);
                } else {
                    p.sink().success();
                }
            }
            return;
        }
        for (Pending p : batch) {
            if (p.ticket() != null) {
                p.sink().success(micros);
            } else {
                p.sink().success();
            }
        }
    }

    /** Tickets acknowledged by a newer ticket's store instead of a store of their own, since start. */
    long coalesced() {
        synchronized (queue) {
            return coalesced;
        }
    }

    /** Tickets handed over and not yet taken by the worker. */
    int waiting() {
        synchronized (queue) {
            return (int) queue.stream().filter(p -> p.ticket() != null).count();
        }
    }

    void dispose() {
        worker.dispose();
    }
}
