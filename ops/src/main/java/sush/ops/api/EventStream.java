package sush.ops.api;

import static sush.ops.api.Replies.error;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.reactivestreams.Publisher;

import reactor.core.publisher.BufferOverflowStrategy;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import sush.ops.wire.Event;
import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.projections.message.Message;

/**
 * {@code GET /events}: the sled's events a client follows as server-sent events, numbered so
 * that a client that reconnects with Last-Event-ID catches up on a bounded history; a bounded
 * number of streams, and a stream that falls behind by the bound, or stops reading, is cut.
 */
final class EventStream {
    private final ApiLimits limits;
    private final SledConfig cfg;
    private final Sinks.Many<Numbered> events;
    private final AtomicLong nextEvent = new AtomicLong(1);
    private final AtomicInteger eventStreams = new AtomicInteger();

    /** An event with its SSE id. */
    record Numbered(long id, String kind, Event data) {
    }

    EventStream(ApiContext api) {
        this.limits = api.limits();
        this.cfg = api.cfg();
        this.events = Sinks.many().replay().limit(limits.eventHistory());
    }

    /** Numbers {@code e} and tells it to the streams when clients are shown it (statuses, floors, errors). */
    void number(SledEvent e) {
        Numbered shown = shown(e, cfg.me().baseboard());
        if (shown != null) {
            events.tryEmitNext(new Numbered(nextEvent.getAndIncrement(), shown.kind(), shown.data()));
        }
    }

    /** Event {@code e} of sled {@code sled} as clients are shown it (numbered 0), or null when they are not. */
    static Numbered shown(SledEvent e, String sled) {
        if (e instanceof SledEvent.StatusChanged) {
            SledEvent.StatusChanged c = (SledEvent.StatusChanged) e;
            return new Numbered(0, "status", new Event(c.job().codephrase(), c.baseboard(), Json.status(c.status(),
                    c.message()), null, sled));
        } else if (e instanceof SledEvent.FloorRaised) {
            return new Numbered(0, "floor", new Event(null, null, null, Json.lower(((SledEvent.FloorRaised) e).cause()),
                    sled));
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.RackError) {
            Message.RackError r = (Message.RackError) ((SledEvent.Gossiped) e).message();
            return new Numbered(0, "error", new Event(null, null, errorFields(Json.lower(r.kind()), r.detail()), null,
                    sled));
        } else if (e instanceof SledEvent.Failed) {
            return new Numbered(0, "error", new Event(null, null, errorFields("sled", ((SledEvent.Failed) e).what()),
                    null, sled));
        }
        return null;
    }

    /** An error event's fields: its kind and detail, as a status's error says them. */
    private static SledStatus errorFields(String error, String detail) {
        return new SledStatus(null, null, null, null, null, null, null, error, detail, null, null, null, null, null,
                null, null);
    }

    /** {@code GET /events}: the events after Last-Event-ID (within the history), then each as it comes. */
    Publisher<Void> events(HttpServerRequest q, HttpServerResponse s) {
        long after;
        try {
            String last = q.requestHeaders().get("Last-Event-ID");
            after = last == null ? 0 : Long.parseLong(last.trim());
        } catch (NumberFormatException e) {
            return error(s, 400, "bad-last-event-id", "Last-Event-ID is a number");
        }
        if (eventStreams.incrementAndGet() > limits.maxEventStreams()) {
            eventStreams.decrementAndGet();
            return error(s, 503, "too-many-streams", limits.maxEventStreams() + " event streams are open on this sled");
        }
        int backlog = (int) Math.min(limits.eventHistory(), Math.max(0, nextEvent.get() - 1 - after));
        Flux<String> frames = followed(events.asFlux().filter(n -> n.id() > after), backlog, limits.maxEventLag())
                .map(n -> "id: " + n.id() + "\nevent: " + n.kind() + "\ndata: " + Json.MAPPER.writeValueAsString(n.data())
                        + "\n\n")
                .doFinally(signal -> eventStreams.decrementAndGet());
        // A subscriber that stops reading: its pending frames stop moving, and it is cut.
        WriteStall.install(q, limits.writeStall());
        return s.sse().sendString(frames).then();
    }

    /**
     * The events of one stream, at most {@code lag} behind what the sled has emitted: past it the
     * stream ends with an error (the connection closes) instead of holding the sled's history
     * for a client that does not read (issue 22).
     */
    static <T> Flux<T> lagBounded(Flux<T> events, int lag) {
        return events.onBackpressureBuffer(lag, dropped -> { }, BufferOverflowStrategy.ERROR);
    }

    /**
     * The stream of a new subscriber: the history it is owed ({@code backlog} events, replayed at
     * once on subscription, before the connection can take them), then what follows, within
     * {@code lag} more. The backlog is never counted as lag; the bound stays a bound.
     */
    static <T> Flux<T> followed(Flux<T> events, int backlog, int lag) {
        return lagBounded(events, backlog + lag);
    }
}
