package sush.ops.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import reactor.core.publisher.Mono;

/** The attach's wait for a job's end asks again after each answer, however slow the answers are. */
class PollTest {
    @Test
    void answersSlowerThanThePeriodAreWaitedForAndTheFirstValueIsTaken() {
        AtomicInteger asked = new AtomicInteger();
        // Each answer takes 120 ms, over twice the 50 ms period; the third one has the value.
        Mono<String> ask = Mono.delay(Duration.ofMillis(120)).then(Mono.fromSupplier(() -> asked.incrementAndGet() >= 3
                ? "stopped" : null));
        assertEquals("stopped", Terminals.poll(() -> ask, 10, Duration.ofMillis(50)).block(Duration.ofSeconds(10)));
        assertEquals(3, asked.get());
    }

    @Test
    void anAnswerThatNeverComesIsEmptyAfterThePolls() {
        AtomicInteger asked = new AtomicInteger();
        Mono<String> never = Mono.fromSupplier(() -> {
            asked.incrementAndGet();
            return null;
        });
        assertNull(Terminals.poll(() -> never, 4, Duration.ofMillis(10)).block(Duration.ofSeconds(10)));
        assertEquals(4, asked.get());
    }
}
