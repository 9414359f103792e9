package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The orderings' names on the wire and in {@code rack.json}, and reading them back. */
class OrderingTest {
    @Test
    void eachOrderingIsNamedInLowerCaseAndReadBackByThatName() {
        assertEquals("causal", Ordering.CAUSAL.wireName());
        assertEquals("signed", Ordering.SIGNED.wireName());
        assertEquals(Ordering.CAUSAL, Ordering.parse("causal"));
        assertEquals(Ordering.SIGNED, Ordering.parse("signed"));
    }

    @Test
    void anyOtherNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Ordering.parse("SIGNED"));
        assertThrows(IllegalArgumentException.class, () -> Ordering.parse(""));
        assertThrows(IllegalArgumentException.class, () -> Ordering.parse("total"));
    }
}
