package sush.gossip.set;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;
import reactor.core.publisher.FluxSink;
import reactor.util.context.Context;
import sush.gossip.Entropy;

/**
 * The drain's wake-up accounting: each wake-up costs one pass over the log, and a wake-up that
 * comes while a pass runs (another thread's send, a subscriber's request) is never lost: it
 * costs exactly one more pass, which delivers what it announced. A recording sink stands for
 * the subscriber, so that the passes (each starts by asking for the demand) can be counted.
 */
class DeliveryDrainTest {
    /** A subscriber's sink: what it was given, its demand, and how often the drain asked for it. */
    private static final class Recorder implements FluxSink<Delivery> {
        final List<Long> got = new ArrayList<>();
        long demand;
        int asks;
        /** Run once, right after the next ask read the demand: what happens just after the drain looked. */
        Runnable afterAsk = () -> { };

        @Override
        public FluxSink<Delivery> next(Delivery d) {
            got.add(d.checkpoint());
            demand--;
            return this;
        }

        @Override
        public long requestedFromDownstream() {
            asks++;
            long d = demand;
            Runnable after = afterAsk;
            afterAsk = () -> { };
            after.run();
            return d;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public void complete() {
        }

        @Override
        public void error(Throwable e) {
        }

        @Override
        @Deprecated
        public Context currentContext() {
            return Context.empty();
        }

        @Override
        public FluxSink<Delivery> onRequest(LongConsumer consumer) {
            return this;
        }

        @Override
        public FluxSink<Delivery> onCancel(Disposable d) {
            return this;
        }

        @Override
        public FluxSink<Delivery> onDispose(Disposable d) {
            return this;
        }
    }

    private static Replica withMessages(int n) {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(7)));
        for (int i = 0; i < n; i++) {
            r.send(new byte[] {(byte) i});
        }
        return r;
    }

    @Test
    void aWakeUpWithNothingNewMakesOnePass() {
        Replica r = withMessages(2);
        Recorder sink = new Recorder();
        sink.demand = 10;
        DeliveryDrain drain = new DeliveryDrain(r, sink, 0);
        drain.run();
        assertEquals(List.of(1L, 2L), sink.got);
        assertEquals(2, sink.asks, "one pass: a batch, then the empty rest of the log");
        drain.run();
        assertEquals(3, sink.asks, "caught up: one look, and it stops");
        assertEquals(List.of(1L, 2L), sink.got);
    }

    @Test
    void aWakeUpDuringAPassCostsExactlyOneMorePassWhichDeliversWhatItAnnounced() {
        Replica r = withMessages(1);
        Recorder sink = new Recorder();
        sink.demand = 1;
        DeliveryDrain drain = new DeliveryDrain(r, sink, 0);
        // The drain sees no demand left after the first message; just after it looked, a new
        // message is held and the subscriber asks for one more: both wake the drain mid-pass.
        sink.afterAsk = () -> sink.afterAsk = () -> {
            r.send(new byte[] {9});
            sink.demand++;
            drain.run();
        };
        drain.run();
        assertEquals(List.of(1L, 2L), sink.got);
        assertEquals(4, sink.asks, "two passes of two looks each");
    }
}
