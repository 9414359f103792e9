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
        EventStream.lagBounded(sink.asFlux(), 8).subscribe(slow);
        EventStream.lagBounded(sink.asFlux(), 8).subscribe(fastGot::add);
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

    /**
     * A stream opened on a sled with history replays it first: the replayed backlog must not
     * count as lag (found by ./bench.sh page: on a sled with more than 1,024 events of history,
     * every new /events stream ended at once, and the page and `--wait` reconnected forever).
     */
    @Test
    void aNewStreamGetsTheWholeReplayedHistoryThenFollows() {
        Sinks.Many<Integer> sink = Sinks.many().replay().limit(16);
        for (int i = 0; i < 16; i++) {
            sink.tryEmitNext(i);
        }
        List<Integer> got = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> end = new AtomicReference<>();
        // Reading as a connection does: a prefetch at once, more only once those were written, later
        // (MonoSendMany replenishes after its writes complete, never within the replay).
        BaseSubscriber<Integer> connection = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(4);
            }

            @Override
            protected void hookOnNext(Integer value) {
                got.add(value);
            }

            @Override
            protected void hookOnError(Throwable t) {
                end.set(t);
            }
        };
        EventStream.followed(sink.asFlux(), 16, 8).subscribe(connection);
        connection.request(100);
        sink.tryEmitNext(16);
        assertEquals(null, end.get(), "the backlog is not lag");
        assertEquals(17, got.size());
    }
}
