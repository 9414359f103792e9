package sush.gossip.net;

import java.util.function.Consumer;

import reactor.core.publisher.Mono;
import sush.gossip.link.Link;

/** A transport that hands everything to another; subclasses change what they need. */
public abstract class ForwardingTransport implements Transport {
    private final Transport inner;

    protected ForwardingTransport(Transport inner) {
        this.inner = inner;
    }

    @Override
    public Mono<Void> listen(Consumer<Link> acceptor) {
        return inner.listen(acceptor);
    }

    @Override
    public Mono<Link> dial(String address) {
        return inner.dial(address);
    }

    @Override
    public String localAddress() {
        return inner.localAddress();
    }

    @Override
    public void close() {
        inner.close();
    }
}
