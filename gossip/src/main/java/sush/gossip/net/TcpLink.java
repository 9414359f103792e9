package sush.gossip.net;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import javax.net.ssl.SSLPeerUnverifiedException;

import io.netty.handler.ssl.SslHandler;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;
import reactor.netty.NettyInbound;
import reactor.netty.NettyOutbound;
import reactor.util.concurrent.Queues;
import sush.gossip.link.Link;
import sush.gossip.link.LinkBrokenException;

/** A {@link Link} over one Reactor Netty TCP connection. */
final class TcpLink implements Link {
    private static final Duration EMIT_RETRY = Duration.ofSeconds(5);
    /** How long a poisoned link may take to flush its last frames before it is closed hard. */
    private static final Duration FLUSH_GRACE = Duration.ofSeconds(1);

    /** Chunks written but not yet taken by Netty; a peer that stops reading loses the link. */
    static final int MAX_QUEUED_CHUNKS = 8192;

    private final Sinks.Many<byte[]> outgoing = Sinks.many().unicast()
            .onBackpressureBuffer(new BoundedChunkQueue(MAX_QUEUED_CHUNKS));
    /** What Netty read and the node has not yet taken; grows in small links as it fills. */
    private final Sinks.Many<byte[]> incoming = Sinks.many().unicast()
            .onBackpressureBuffer(Queues.<byte[]>unbounded(BoundedChunkQueue.LINK).get());
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Runnable onClose;
    private volatile Connection connection;
    /** The peer's certificate on a TLS link (set before any byte is read), else null. */
    private volatile X509Certificate peerCertificate;
    /** The identity the peer's certificate names, read once (the node asks at every frame). */
    private volatile Optional<String> peerIdentity = Optional.empty();
    private volatile boolean tls;

    /** What a TLS peer's certificate must pass after every handshake (null on plain links). */
    private final Predicate<X509Certificate> trust;

    TcpLink(Runnable onClose, Predicate<X509Certificate> trust) {
        this.onClose = onClose;
        this.trust = trust;
    }

    /** The connection handler: pumps the socket into {@link #receive()} and {@link #send} into the socket. */
    Publisher<Void> bind(NettyInbound in, NettyOutbound out) {
        in.withConnection(c -> {
            connection = c;
            SslHandler ssl = c.channel().pipeline().get(SslHandler.class);
            if (ssl != null) {
                tls = true;
                // The peer's certificate is known once the handshake is done, before any
                // application byte can be read.
                ssl.handshakeFuture().addListener(f -> {
                    if (!f.isSuccess()) {
                        breakWith("TLS handshake failed: " + f.cause());
                        return;
                    }
                    try {
                        Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
                        if (chain.length > 0 && chain[0] instanceof X509Certificate) {
                            X509Certificate peer = (X509Certificate) chain[0];
                            // Checked again here: a resumed TLS session skips the trust manager, and
                            // the peer may have been revoked since the session was made.
                            if (trust != null && !trust.test(peer)) {
                                breakWith("the peer's certificate is no longer trusted");
                                return;
                            }
                            peerIdentity = GossipTls.identity(peer);
                            peerCertificate = peer;
                        }
                    } catch (SSLPeerUnverifiedException e) {
                        breakWith("the peer presented no certificate");
                    }
                });
            }
            c.onDispose(() -> breakWith("connection closed"));
            if (closed.get()) {
                c.dispose();
            }
        });
        in.receive().asByteArray().subscribe(
                bytes -> {
                    if (tls && peerCertificate == null) {
                        breakWith("bytes before the peer's certificate was verified");
                        return;
                    }
                    incoming.emitNext(bytes, Sinks.EmitFailureHandler.busyLooping(EMIT_RETRY));
                },
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

    @Override
    public Optional<String> peerIdentity() {
        return peerCertificate == null ? Optional.empty() : peerIdentity;
    }

    /** The peer's certificate on a TLS link. */
    Optional<X509Certificate> peerCertificate() {
        return Optional.ofNullable(peerCertificate);
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
