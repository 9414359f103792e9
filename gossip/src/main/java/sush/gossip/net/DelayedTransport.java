package sush.gossip.net;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import sush.gossip.link.Link;

/**
 * Adds a fixed one-way latency to every link of another transport: each received chunk, and
 * the end of the stream, is handed on {@code delay} after it arrived, in order. Used to stage
 * slow networks (the 100 ms hop of the rack benchmark).
 */
public final class DelayedTransport extends ForwardingTransport {
    private static final Duration EMIT_RETRY = Duration.ofSeconds(5);

    private final Duration delay;
    private final Scheduler scheduler;

    public DelayedTransport(Transport inner, Duration delay, Scheduler scheduler) {
        super(inner);
        this.delay = delay;
        this.scheduler = scheduler;
    }

    @Override
    public Mono<Void> listen(Consumer<Link> acceptor) {
        return super.listen(link -> acceptor.accept(new DelayedLink(link)));
    }

    @Override
    public Mono<Link> dial(String address) {
        return super.dial(address).map(DelayedLink::new);
    }

    /** One delayed link; a single worker keeps the order of what it hands on. */
    private final class DelayedLink implements Link {
        private final Link link;
        private final Scheduler.Worker worker = scheduler.createWorker();
        private final Sinks.Many<byte[]> delayed = Sinks.many().unicast().onBackpressureBuffer();

        DelayedLink(Link link) {
            this.link = link;
            long ns = delay.toNanos();
            link.receive().subscribe(
                    bytes -> worker.schedule(() -> delayed.emitNext(bytes, Sinks.EmitFailureHandler.busyLooping(EMIT_RETRY)),
                            ns, TimeUnit.NANOSECONDS),
                    error -> worker.schedule(() -> {
                        delayed.tryEmitError(error);
                        worker.dispose();
                    }, ns, TimeUnit.NANOSECONDS),
                    () -> worker.schedule(() -> {
                        delayed.tryEmitComplete();
                        worker.dispose();
                    }, ns, TimeUnit.NANOSECONDS));
        }

        @Override
        public void send(byte[] bytes) {
            link.send(bytes);
        }

        @Override
        public Flux<byte[]> receive() {
            return delayed.asFlux();
        }

        @Override
        public void poison(String reason) {
            link.poison(reason);
        }

        @Override
        public boolean isOpen() {
            return link.isOpen();
        }
    }
}
