package sush.gossip.net;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.reactivestreams.Publisher;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;
import reactor.netty.NettyInbound;
import reactor.netty.NettyOutbound;
import sush.gossip.link.Link;
import sush.gossip.link.LinkBrokenException;

/** A {@link Link} over one Reactor Netty TCP connection. */
final class TcpLink implements Link {
    private static final java.time.Duration EMIT_RETRY = java.time.Duration.ofSeconds(5);
    /** How long a poisoned link may take to flush its last frames before it is closed hard. */
    private static final java.time.Duration FLUSH_GRACE = java.time.Duration.ofSeconds(1);

    /** Chunks written but not yet taken by Netty; a peer that stops reading loses the link. */
    static final int MAX_QUEUED_CHUNKS = 8192;

    private final Sinks.Many<byte[]> outgoing = Sinks.many().unicast()
            .onBackpressureBuffer(reactor.util.concurrent.Queues.<byte[]>get(MAX_QUEUED_CHUNKS).get());
    private final Sinks.Many<byte[]> incoming = Sinks.many().unicast().onBackpressureBuffer();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Runnable onClose;
    private volatile Connection connection;

    TcpLink(Runnable onClose) {
        this.onClose = onClose;
    }

    /** The connection handler: pumps the socket into {@link #receive()} and {@link #send} into the socket. */
    Publisher<Void> bind(NettyInbound in, NettyOutbound out) {
        in.withConnection(c -> {
            connection = c;
            c.onDispose(() -> breakWith("connection closed"));
            if (closed.get()) {
                c.dispose();
            }
        });
        in.receive().asByteArray().subscribe(
                bytes -> incoming.emitNext(bytes, Sinks.EmitFailureHandler.busyLooping(EMIT_RETRY)),
                error -> breakWith("read failed: " + error.getMessage()),
                () -> breakWith("peer closed the connection"));
        return out.sendByteArray(outgoing.asFlux());
    }

    @Override
    public void send(byte[] bytes) {
        if (closed.get()) {
            return;
        }
        Sinks.EmitResult result = outgoing.tryEmitNext(bytes);
        long deadline = System.nanoTime() + EMIT_RETRY.toNanos();
        while (result == Sinks.EmitResult.FAIL_NON_SERIALIZED && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            result = outgoing.tryEmitNext(bytes);
        }
        if (result == Sinks.EmitResult.FAIL_OVERFLOW) {
            breakWith("peer not reading: " + MAX_QUEUED_CHUNKS + " chunks queued");
        } else if (result.isFailure() && result != Sinks.EmitResult.FAIL_TERMINATED
                && result != Sinks.EmitResult.FAIL_CANCELLED) {
            breakWith("cannot queue bytes: " + result);
        }
    }

    @Override
    public Flux<byte[]> receive() {
        return incoming.asFlux();
    }

    @Override
    public void poison(String reason) {
        breakWith("poisoned: " + reason);
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    private void breakWith(String reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        onClose.run();
        // Completing the outbound flux lets Netty flush what is queued (the ABORT, and the
        // preamble a peer needs to learn it lost the universe contest) and then close the
        // connection; the timer closes it anyway if the flush never finishes.
        outgoing.tryEmitComplete();
        incoming.tryEmitError(new LinkBrokenException(reason));
        Connection c = connection;
        if (c != null) {
            Schedulers.parallel().schedule(c::dispose, FLUSH_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
