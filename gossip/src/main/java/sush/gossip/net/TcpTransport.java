package sush.gossip.net;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.netty.channel.ChannelOption;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;
import sush.gossip.link.Link;

/**
 * Links over TCP with Reactor Netty: one server socket, one connection per dialled link. With
 * {@link GossipTls} every link is mutual TLS 1.3 with the rack's certificates and knows its
 * peer's proven name; without it (tests, {@code --insecure-gossip}) links are plain TCP.
 */
public final class TcpTransport implements Transport {
    private final String host;
    private final int port;
    private final Duration connectTimeout;
    private final Optional<GossipTls> tls;
    private final Set<TcpLink> links = ConcurrentHashMap.newKeySet();
    private volatile DisposableServer server;

    /** Listens on {@code host:port} (port 0 picks a free one); dials give up after {@code connectTimeout}. */
    public TcpTransport(String host, int port, Duration connectTimeout) {
        this(host, port, connectTimeout, Optional.empty());
    }

    /** As above; with {@code tls}, every accepted and dialled link is mutual TLS. */
    public TcpTransport(String host, int port, Duration connectTimeout, Optional<GossipTls> tls) {
        this.host = host;
        this.port = port;
        this.connectTimeout = connectTimeout;
        this.tls = tls;
    }

    /** Whether links are authenticated (mutual TLS). */
    public boolean secure() {
        return tls.isPresent();
    }

    /**
     * Closes every link whose peer certificate the TLS trust no longer accepts (after {@link
     * GossipTls#reloadRevocations()}, or once it expired); returns how many.
     */
    public int closeUntrusted() {
        if (tls.isEmpty()) {
            return 0;
        }
        int n = 0;
        for (TcpLink link : links) {
            if (link.peerCertificate().map(c -> !tls.get().stillTrusted(c)).orElse(false)) {
                link.poison("the peer's certificate is no longer trusted (revoked or expired)");
                n++;
            }
        }
        return n;
    }

    @Override
    public Mono<Void> listen(Consumer<Link> acceptor) {
        TcpServer tcp = TcpServer.create().host(host).port(port).option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true);
        if (tls.isPresent()) {
            tcp = tcp.secure(spec -> spec.sslContext(tls.get().serverContext())
                    .handshakeTimeout(GossipTls.HANDSHAKE_TIMEOUT));
        }
        return tcp.handle((in, out) -> {
                    TcpLink link = track();
                    org.reactivestreams.Publisher<Void> pump = link.bind(in, out);
                    acceptor.accept(link);
                    return pump;
                })
                .bind()
                .doOnNext(s -> server = s)
                .then();
    }

    @Override
    public Mono<Link> dial(String address) {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            return Mono.error(new IllegalArgumentException("address is host:port, not " + address));
        }
        String peerHost = address.substring(0, colon);
        int peerPort = Integer.parseInt(address.substring(colon + 1));
        TcpLink link = track();
        TcpClient client = TcpClient.create().host(peerHost).port(peerPort)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .option(ChannelOption.TCP_NODELAY, true);
        if (tls.isPresent()) {
            // No host name check (GossipTls's trust): sleds are dialled by address and named by
            // their certificates; the gossip node matches the proven name against the peer set.
            client = client.secure(spec -> spec.sslContext(tls.get().clientContext())
                    .handshakeTimeout(GossipTls.HANDSHAKE_TIMEOUT));
        }
        return client.handle(link::bind)
                .connect()
                .map(connection -> (Link) link)
                .doOnError(e -> link.poison("connect failed"));
    }

    @Override
    public String localAddress() {
        DisposableServer s = server;
        return s == null ? host + ":" + port : host + ":" + s.port();
    }

    @Override
    public void close() {
        DisposableServer s = server;
        if (s != null) {
            s.disposeNow(Duration.ofSeconds(2));
        }
        for (TcpLink link : links) {
            link.poison("transport closed");
        }
        links.clear();
    }

    private TcpLink track() {
        TcpLink[] holder = new TcpLink[1];
        holder[0] = new TcpLink(() -> links.remove(holder[0]), tls.<Predicate<
                X509Certificate>>map(t -> t::stillTrusted).orElse(null));
        links.add(holder[0]);
        return holder[0];
    }
}
