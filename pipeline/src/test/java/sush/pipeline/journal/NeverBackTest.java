package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import net.openhft.chronicle.core.time.SetTimeProvider;

/** The journal's clock (issue 38) in every unit Chronicle asks it for: the wall clock, never back. */
class NeverBackTest {
    @Test
    void microsAndNanosAreTheMillisItGivesNeverBeforeItsFloor() {
        long millis = TimeUnit.HOURS.toMillis(400_000) + 1_234;
        SetTimeProvider wall = new SetTimeProvider(TimeUnit.MILLISECONDS.toNanos(millis));
        NeverBack clock = new NeverBack(wall);
        assertEquals(millis, clock.currentTimeMillis());
        assertEquals(millis * 1_000, clock.currentTimeMicros());
        assertEquals(millis * 1_000_000, clock.currentTimeNanos());
        clock.atLeast(millis + 5_000);
        assertEquals((millis + 5_000) * 1_000, clock.currentTimeMicros(), "a floor ahead of the wall clock");
        assertEquals((millis + 5_000) * 1_000_000, clock.currentTimeNanos());
    }
}
