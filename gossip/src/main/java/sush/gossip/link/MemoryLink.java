package sush.gossip.link;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * One end of an in-memory link. Deterministic: with no delay, bytes are handed over on the
 * sender's thread (Reactor's drain loop trampolines re-entrant hand-overs); with a delay, each
 * direction runs on one worker of the given scheduler (a virtual-time one in tests and the
 * simulator), so order is kept. A link can be set to break after a number of bytes, cutting a
 * session at any byte.
 */
public final class MemoryLink implements Link {
    private static final Duration EMIT_RETRY = Duration.ofSeconds(5);

    private final Shared shared;
    private final Sinks.Many<byte[]> inbound = Sinks.many().unicast().onBackpressureBuffer();
    private final AtomicLong bytesSent = new AtomicLong();
    private final Scheduler.Worker worker;
    private MemoryLink peer;

    private MemoryLink(Shared shared, Scheduler.Worker worker) {
        this.shared = shared;
        this.worker = worker;
    }

    /** Two connected ends, handing bytes over at once. */
    public static MemoryLink[] pair() {
        return pair(Duration.ZERO, null);
    }

    /** Two connected ends; each chunk arrives {@code delay} after it was sent, on {@code scheduler}. */
    public static MemoryLink[] pair(Duration delay, Scheduler scheduler) {
        Shared shared = new Shared(delay);
        boolean delayed = !delay.isZero();
        MemoryLink a = new MemoryLink(shared, delayed ? scheduler.createWorker() : null);
        MemoryLink b = new MemoryLink(shared, delayed ? scheduler.createWorker() : null);
        a.peer = b;
        b.peer = a;
        return new MemoryLink[] {a, b};
    }

    /** Breaks the link once {@code bytes} more bytes (both directions together) have been sent. */
    public void cutAfter(long bytes) {
        synchronized (shared) {
            shared.budgetBytes = bytes;
        }
    }

    /** Bytes this end has sent. */
    public long bytesSent() {
        return bytesSent.get();
    }

    @Override
    public void send(byte[] bytes) {
        byte[] chunk;
        boolean breakAfter;
        synchronized (shared) {
            if (shared.closed) {
                return;
            }
            chunk = bytes.clone();
            breakAfter = false;
            if (shared.budgetBytes >= 0) {
                if (chunk.length >= shared.budgetBytes) {
                    chunk = Arrays.copyOf(chunk, (int) shared.budgetBytes);
                    breakAfter = true;
                    shared.closed = true;
                } else {
                    shared.budgetBytes -= chunk.length;
                }
            }
        }
        bytesSent.addAndGet(chunk.length);
        byte[] delivered = chunk;
        if (delivered.length > 0) {
            peer.deliver(() -> peer.inbound.emitNext(delivered, Sinks.EmitFailureHandler.busyLooping(EMIT_RETRY)));
        }
        if (breakAfter) {
            breakBoth("link cut after its byte budget");
        }
    }

    @Override
    public Flux<byte[]> receive() {
        return inbound.asFlux();
    }

    @Override
    public void poison(String reason) {
        synchronized (shared) {
            if (shared.closed && shared.broken) {
                return;
            }
            shared.closed = true;
        }
        breakBoth("link poisoned: " + reason);
    }

    @Override
    public boolean isOpen() {
        synchronized (shared) {
            return !shared.closed;
        }
    }

    private void breakBoth(String reason) {
        synchronized (shared) {
            if (shared.broken) {
                return;
            }
            shared.broken = true;
        }
        for (MemoryLink end : new MemoryLink[] {this, peer}) {
            end.deliver(() -> end.inbound.emitError(new LinkBrokenException(reason),
                    Sinks.EmitFailureHandler.busyLooping(EMIT_RETRY)));
        }
    }

    private void deliver(Runnable task) {
        if (worker == null) {
            task.run();
        } else {
            worker.schedule(task, shared.delay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** State both ends share. */
    private static final class Shared {
        final Duration delay;
        boolean closed;
        boolean broken;
        long budgetBytes = -1;

        Shared(Duration delay) {
            this.delay = delay;
        }
    }
}
