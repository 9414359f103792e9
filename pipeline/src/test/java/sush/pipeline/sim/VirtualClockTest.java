package sush.pipeline.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The simulator's own virtual clock (issue 37) keeps the order of reactor-test's
 * {@link VirtualTimeScheduler}, which it replaced in the product jar: a seed must replay the
 * same schedule it did before. Each case runs the same script on both and compares what ran,
 * when.
 */
class VirtualClockTest {
    /** What a script observed: "name@millis" in the order tasks ran. */
    private static List<String> run(Scheduler s, Runnable advance, Consumer<Duration> by) {
        List<String> seen = new ArrayList<>();
        Scheduler.Worker w = s.createWorker();
        s.schedule(() -> seen.add("d10@" + s.now(TimeUnit.MILLISECONDS)), 10, TimeUnit.MILLISECONDS);
        w.schedule(() -> {
            seen.add("w-now@" + s.now(TimeUnit.MILLISECONDS));
            // Scheduled while running, for now: runs in the same advance, before later tasks.
            s.schedule(() -> seen.add("nested@" + s.now(TimeUnit.MILLISECONDS)));
        });
        Disposable p = s.schedulePeriodically(() -> seen.add("p@" + s.now(TimeUnit.MILLISECONDS)), 5, 5,
                TimeUnit.MILLISECONDS);
        Disposable cancelled = w.schedule(() -> seen.add("cancelled"), 7, TimeUnit.MILLISECONDS);
        cancelled.dispose();
        advance.run();
        by.accept(Duration.ofMillis(10));
        // A task due now (scheduled with a delay of zero, earlier) and one given no delay (later):
        s.schedule(() -> seen.add("due-now@" + s.now(TimeUnit.MILLISECONDS)), 0, TimeUnit.MILLISECONDS);
        s.schedule(() -> seen.add("no-delay@" + s.now(TimeUnit.MILLISECONDS)));
        advance.run();
        p.dispose();
        by.accept(Duration.ofMillis(20));
        Mono.delay(Duration.ofMillis(3), s).subscribe(x -> seen.add("mono@" + s.now(TimeUnit.MILLISECONDS)));
        Flux.interval(Duration.ofMillis(2), s).take(3).subscribe(x -> seen.add("flux" + x + "@"
                + s.now(TimeUnit.MILLISECONDS)));
        by.accept(Duration.ofMillis(10));
        w.dispose();
        try {
            w.schedule(() -> seen.add("after-dispose"), 1, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            seen.add("refused after dispose");
        }
        by.accept(Duration.ofMillis(5));
        return seen;
    }

    @Test
    void runsTasksInTheOrderAndAtTheTimesOfReactorsVirtualTime() {
        VirtualClock ours = VirtualClock.create();
        VirtualTimeScheduler theirs = VirtualTimeScheduler.create();
        List<String> a = run(ours, ours::advanceTime, ours::advanceTimeBy);
        List<String> b = run(theirs, theirs::advanceTime, theirs::advanceTimeBy);
        assertEquals(b, a);
        assertEquals("w-now@0", a.get(0));
        assertEquals(true, a.indexOf("due-now@10") >= 0 && a.indexOf("due-now@10") < a.indexOf("no-delay@10"),
                a.toString());
    }

    @Test
    void aDisposedClockRefusesWork() {
        VirtualClock c = VirtualClock.create();
        c.dispose();
        assertThrows(RejectedExecutionException.class, () -> c.schedule(() -> { }));
    }
}
