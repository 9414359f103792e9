package sush.ops.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;

import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Sinks;

/**
 * An event stream whose client stops reading is dropped once it lags by the bound, and it no
 * longer pins the sled's event history (issue 22); a reading client never is.
 */
class EventLagTest {
    @Test
    void aStreamThatLagsPastTheBoundEndsAndOneThatReadsDoesNot() {
        Sinks.Many<Integer> sink = Sinks.many().replay().limit(16);
        AtomicReference<Throwable> slowEnd = new AtomicReference<>();
        List<Integer> fastGot = new CopyOnWriteArrayList<>();
        BaseSubscriber<Integer> slow = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(1); // takes one, then stops reading
            }

            @Override
            protected void hookOnError(Throwable t) {
                slowEnd.set(t);
            }
        };
        ApiServer.lagBounded(sink.asFlux(), 8).subscribe(slow);
        ApiServer.lagBounded(sink.asFlux(), 8).subscribe(fastGot::add);
        for (int i = 0; i < 9; i++) {
            sink.tryEmitNext(i);
        }
        assertEquals(2, sink.currentSubscriberCount(), "1 taken and 8 pending: within the bound");
        sink.tryEmitNext(9);
        assertEquals(1, sink.currentSubscriberCount(), "the 9th pending event drops the stream from the sled's events");
        for (int i = 10; i < 100; i++) {
            sink.tryEmitNext(i);
        }
        assertEquals(100, fastGot.size(), "a reading stream gets every event");
        // What it holds stays bounded; reading on, it gets what was pending, then the end.
        slow.request(100);
        assertInstanceOf(Throwable.class, slowEnd.get(), "the stream ended with an error");
    }
}
