package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Grants;
import sush.projections.fixtures.Signers;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignerKey;

/** The newest grant not stopped by its starter is active, in every delivery order (section 2). */
class OrderedSessionProjectionTest {
    private static final SignerKey A = Signers.key(1);
    private static final SignerKey B = Signers.key(2);

    @Test
    void theNewestGrantIsActiveAndOlderOnesNeverComeBack() {
        OrderedSessionProjection p = new OrderedSessionProjection();
        assertEquals(Optional.empty(), p.active());
        SignedGrant g1 = Grants.signed(A, 10, 1, "op");
        SignedGrant g2 = Grants.signed(A, 20, 2, "op");
        assertTrue(p.onGrant(g1));
        assertEquals(0, p.superseded(), "the first grant supersedes nothing");
        assertTrue(p.onGrant(g2));
        assertEquals(1, p.superseded(), "g1 replaced");
        assertFalse(p.onGrant(g1), "superseded forever");
        assertEquals(2, p.superseded(), "g1 again refused");
        assertFalse(p.onGrant(g2), "the newest again changes nothing");
        assertEquals(2, p.superseded(), "the newest again is no supersession");
        assertEquals(Optional.of(g2), p.active());
        p.onStop(g2.grant().session(), "op");
        assertEquals(Optional.empty(), p.active(), "stopping the newest leaves none active");
        assertEquals(Optional.of(g2), p.newest());
        assertFalse(p.onGrant(g1), "an older grant does not come back");
        assertEquals(Optional.empty(), p.active());
        SignedGrant g3 = Grants.signed(B, 30, 3, "op");
        assertTrue(p.onGrant(g3));
        assertEquals(Optional.of(g3), p.active(), "until a newer grant arrives");
    }

    @Test
    void onlyTheStarterStopsASessionWhateverArrivesFirst() {
        SignedGrant g = Grants.signed(A, 10, 1, "alice");
        OrderedSessionProjection p = new OrderedSessionProjection();
        p.onStop(g.grant().session(), "mallory");
        p.onGrant(g);
        assertEquals(Optional.of(g), p.active());
        p.onStop(g.grant().session(), "mallory");
        assertEquals(Optional.of(g), p.active());
        OrderedSessionProjection q = new OrderedSessionProjection();
        q.onStop(g.grant().session(), "mallory");
        q.onStop(g.grant().session(), "alice");
        q.onGrant(g);
        assertEquals(Optional.empty(), q.active(), "the starter's stop counts even ahead of the grant");
        assertEquals(0, q.pendingStops());
        // A copy keeps the stops still waiting for their grant.
        OrderedSessionProjection r = new OrderedSessionProjection();
        r.onStop(g.grant().session(), "alice");
        OrderedSessionProjection copy = new OrderedSessionProjection(r);
        copy.onGrant(g);
        assertEquals(Optional.empty(), copy.active());
        assertEquals(1, r.pendingStops(), "the original keeps its own");
    }

    @Test
    void atMostEightNamesAreRememberedAsStoppingOneSessionAheadOfItsGrant() {
        SignedGrant g = Grants.signed(A, 10, 1, "alice");
        OrderedSessionProjection p = new OrderedSessionProjection();
        for (int i = 0; i < OrderedSessionProjection.MAX_STOPPERS; i++) {
            p.onStop(g.grant().session(), "name " + i);
        }
        p.onStop(g.grant().session(), "alice"); // the ninth: not remembered (the bound is explicit)
        p.onGrant(g);
        assertEquals(Optional.of(g), p.active());
        p.onStop(g.grant().session(), "alice");
        assertEquals(Optional.empty(), p.active(), "once granted, the starter's stop always counts");
    }

    @Test
    void everyDeliveryOrderFoldsToTheSameActiveSession() {
        SignedGrant a10 = Grants.signed(A, 10, 1, "op");
        SignedGrant b10 = Grants.signed(B, 10, 2, "op");
        SignedGrant a20 = Grants.signed(A, 20, 3, "op");
        SignedGrant b20 = Grants.signed(B, 20, 4, "op");
        SignedGrant expectedNewest = a20.grant().rank().newerThan(b20.grant().rank()) ? a20 : b20;
        List<Consumer<OrderedSessionProjection>> events = new ArrayList<>();
        for (SignedGrant g : List.of(a10, b10, a20, b20)) {
            events.add(p -> p.onGrant(g));
        }
        events.add(p -> p.onStop(a10.grant().session(), "op"));
        events.add(p -> p.onStop(expectedNewest.grant().session(), "intruder"));
        Random random = new Random(42);
        for (int trial = 0; trial < 200; trial++) {
            Collections.shuffle(events, random);
            OrderedSessionProjection p = new OrderedSessionProjection();
            events.forEach(e -> e.accept(p));
            assertEquals(Optional.of(expectedNewest), p.active(), "order " + trial);
            OrderedSessionProjection copy = new OrderedSessionProjection(p);
            copy.onStop(expectedNewest.grant().session(), "op");
            assertEquals(Optional.empty(), copy.active());
            assertEquals(Optional.of(expectedNewest), p.active(), "a copy is independent");
        }
    }

    @Test
    void pendingStopsAreBounded() {
        OrderedSessionProjection p = new OrderedSessionProjection();
        SignedGrant first = Grants.signed(A, 1, 0, "op");
        p.onStop(first.grant().session(), "op");
        for (int i = 1; i <= OrderedSessionProjection.MAX_PENDING_STOPS; i++) {
            p.onStop(Grants.signed(A, 100 + i, i, "op").grant().session(), "op");
            for (int k = 0; k < OrderedSessionProjection.MAX_STOPPERS + 3; k++) {
                p.onStop(Grants.signed(A, 100 + i, i, "op").grant().session(), "name " + k);
            }
        }
        assertEquals(OrderedSessionProjection.MAX_PENDING_STOPS, p.pendingStops());
        p.onGrant(first);
        assertEquals(Optional.of(first), p.active(), "the oldest pending stop was forgotten");
    }

    // ---- Issue 37: the test below kills mutants of OrderedSessionProjection that survived the suite. ----

    @Test
    void stopsForgottenPastTheBoundAreCounted() {
        OrderedSessionProjection p = new OrderedSessionProjection(1);
        p.onStop(Grants.signed(A, 1, 1, "op").grant().session(), "op");
        assertEquals(0, p.evictedStops(), "within the bound");
        p.onStop(Grants.signed(A, 2, 2, "op").grant().session(), "op");
        assertEquals(1, p.evictedStops());
        p.onStop(Grants.signed(A, 3, 3, "op").grant().session(), "op");
        assertEquals(2, p.evictedStops());
        assertEquals(1, p.pendingStops());
        assertEquals(2, new OrderedSessionProjection(p).evictedStops(), "a copy keeps the count");
    }
}
