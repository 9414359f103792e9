package sush.ops.api;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.reactivestreams.Publisher;

import com.sun.management.UnixOperatingSystemMXBean;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.util.AttributeKey;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Which connections the API keeps (issue 22): a bounded number, a file-descriptor reserve
 * never taken, a whole request head soon after a connection opens, keep-alive connections
 * closed when idle, and room made for a newcomer by closing the oldest connection with no
 * request in progress. Applied to each new channel by {@link Admission}, a Netty handler run
 * once as the channel is set up; a request in progress is marked on its channel.
 */
final class ConnectionPolicy {
    /** Set once the connection delivered a request head that a route answers. */
    private static final AttributeKey<Boolean> SERVED = AttributeKey.valueOf("sush.served");
    /** Set while a request on the connection is being answered. */
    private static final AttributeKey<Boolean> IN_FLIGHT = AttributeKey.valueOf("sush.in-flight");

    private final ApiLimits limits;
    private final AtomicLong evictedConnections = new AtomicLong();
    private final AtomicLong refusedConnections = new AtomicLong();
    /** Open client connections in the order they opened, idle keep-alive ones included. */
    private final Set<Channel> connections = Collections.synchronizedSet(new LinkedHashSet<>());
    private final Admission admission = new Admission();

    ConnectionPolicy(ApiLimits limits) {
        this.limits = limits;
    }

    /** {@code server} with this policy: the idle close, and every new channel admitted or closed. */
    HttpServer apply(HttpServer server) {
        // At the channel's start, before any byte is read: the bound, and the request deadline.
        return server.idleTimeout(limits.idleTimeout()).doOnChannelInit((observer, channel, remote) ->
                channel.pipeline().addFirst("sush-admission", admission));
    }

    /** Connections closed for the bound or the request deadline, since start. */
    long refusedConnections() {
        return refusedConnections.get();
    }

    /**
     * Runs as a new channel is set up, before any byte is read (a Netty initializer: it leaves
     * the pipeline once it ran): closes the channel when the process is short of file
     * descriptors or no room can be made, else counts it and sets its request deadline.
     */
    @ChannelHandler.Sharable
    private final class Admission extends ChannelInitializer<Channel> {
        @Override
        protected void initChannel(Channel channel) {
            if (fileDescriptorsLeft() < limits.fdReserve() || !makeRoom()) {
                refusedConnections.incrementAndGet();
                channel.close();
                return;
            }
            connections.add(channel);
            channel.closeFuture().addListener(f -> connections.remove(channel));
            // A connection must deliver a whole request head soon after it opens, however slowly
            // it trickles bytes (half-sent headers hold a connection forever otherwise).
            channel.eventLoop().schedule(() -> {
                if (!Boolean.TRUE.equals(channel.attr(SERVED).get())) {
                    refusedConnections.incrementAndGet();
                    channel.close();
                }
            }, limits.requestDeadline().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Descriptors this process may still open (its RLIMIT_NOFILE less those open). */
    static long fileDescriptorsLeft() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean) {
            UnixOperatingSystemMXBean u = (UnixOperatingSystemMXBean) os;
            return u.getMaxFileDescriptorCount() - u.getOpenFileDescriptorCount();
        }
        return Long.MAX_VALUE;
    }

    /**
     * Whether a new connection fits: below the bound it does; at the bound the oldest connection
     * with no request in progress (a stranger that never sent one, or an idle keep-alive) is
     * closed to make room, so that idle connections cannot lock operators out (issue 22). With
     * every connection busy, the newcomer is refused.
     */
    private boolean makeRoom() {
        Channel victim = null;
        synchronized (connections) {
            if (connections.size() < limits.maxConnections()) {
                return true;
            }
            for (Channel c : connections) {
                if (!Boolean.TRUE.equals(c.attr(IN_FLIGHT).get())) {
                    victim = c;
                    break;
                }
            }
            if (victim == null) {
                return false;
            }
            connections.remove(victim);
        }
        evictedConnections.incrementAndGet();
        victim.close();
        return true;
    }

    /** Marks the connection as having delivered a request head, then handles it. */
    static Publisher<Void> served(HttpServerRequest q, Supplier<Publisher<Void>> then) {
        return inFlight(q, Mono.defer(() -> Mono.from(then.get())));
    }

    /** Marks the connection busy while {@code p} answers (a download or event stream: while it streams). */
    static Publisher<Void> inFlight(HttpServerRequest q, Publisher<Void> p) {
        Channel[] ch = new Channel[1];
        q.withConnection(c -> {
            ch[0] = c.channel();
            ch[0].attr(SERVED).set(Boolean.TRUE);
            ch[0].attr(IN_FLIGHT).set(Boolean.TRUE);
        });
        return Mono.from(p).doFinally(signal -> {
            if (ch[0] != null) {
                ch[0].attr(IN_FLIGHT).set(Boolean.FALSE);
            }
        });
    }

    /** Closes every client connection, idle keep-alive ones included. */
    void closeAll() {
        List<Channel> all;
        synchronized (connections) {
            all = new ArrayList<>(connections);
            connections.clear();
        }
        all.forEach(Channel::close);
    }
}
