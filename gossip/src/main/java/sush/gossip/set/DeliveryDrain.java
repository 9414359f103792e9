package sush.gossip.set;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.FluxSink;

/** Emits a replica's delivery log to one subscriber as demand and new messages allow. */
final class DeliveryDrain implements Runnable {
    /** Messages read from the log per lock acquisition. */
    private static final int BATCH_MESSAGES = 256;

    private final Replica replica;
    private final FluxSink<Delivery> sink;
    private final AtomicInteger pending = new AtomicInteger();
    private long next;

    DeliveryDrain(Replica replica, FluxSink<Delivery> sink, long checkpoint) {
        if (checkpoint < 0) {
            throw new IllegalArgumentException("negative checkpoint " + checkpoint);
        }
        this.replica = replica;
        this.sink = sink;
        this.next = checkpoint;
    }

    /** Called on demand and on every change; only one caller drains at a time. */
    @Override
    public void run() {
        if (pending.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            long requested = sink.requestedFromDownstream();
            while (requested > 0 && !sink.isCancelled()) {
                List<Delivery> batch = replica.readFrom(next, (int) Math.min(requested, BATCH_MESSAGES));
                if (batch.isEmpty()) {
                    break;
                }
                for (Delivery d : batch) {
                    sink.next(d);
                }
                next = batch.get(batch.size() - 1).checkpoint();
                requested = sink.requestedFromDownstream();
            }
            missed = pending.addAndGet(-missed);
        } while (missed != 0);
    }
}
