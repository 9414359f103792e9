package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import sush.locker.admission.Verdict;
import sush.locker.record.SignedRecord;
import sush.pipeline.Rack;
import sush.projections.fold.Ordering;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * The sled runtime in a rack of the signed ordering (ordered-sessions.md sections 2 to 8): the
 * real runtime, in-memory slots that survive crashes, universes that do not.
 */
class SignedSledTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static SessionId session(SignedGrant g) {
        return g.grant().session();
    }

    private static long launches(SledHarness h, SignedJob j) {
        return h.launches(l -> l.job().equals(id(j)));
    }

    /** Grant and jobs sent on the sled's current side, synced, each launched job ended with 0. */
    private static void run(SledHarness h, SignedGrant g, List<SignedJob> jobs) {
        h.operator(new Message.SessionGrant(g));
        for (SignedJob j : jobs) {
            h.operator(new Message.JobStart(j));
        }
        h.sync();
        // Sequential jobs: each ends before the next may start, so end them one at a time.
        for (int round = 0; round < jobs.size(); round++) {
            for (SignedJob j : jobs) {
                h.launcher.end(id(j), 0); // false for a job not running in this life
            }
            h.settle();
            h.sync();
        }
    }

    private static List<Message.JobSkipped> skips(SledHarness h, SignedJob j) {
        return h.gossiped(Message.JobSkipped.class).stream().filter(s -> s.job().equals(id(j))).toList();
    }

    @Test
    void aProvisionedSledRunsTheGrantsJobsAndRecordsTheSessionsPlace() throws Exception {
        SledHarness h = new SledHarness().provisionSigned(10);
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(session(g), 2, "a", "*");
        h.boot(1);
        run(h, g, jobs);
        assertEquals(1, launches(h, jobs.get(0)));
        assertEquals(1, launches(h, jobs.get(1)));
        SignedRecord r = h.signedLocker.newest().orElseThrow();
        assertEquals(10, r.floor(), "the floor never changes");
        assertEquals(g.grant().rank(), r.committed().orElseThrow().session());
        assertEquals(id(jobs.get(1)), r.committed().orElseThrow().job());
        assertTrue(r.committed().orElseThrow().outcome().isEnded(), "the ending is recorded");
        assertEquals(Ordering.SIGNED, h.sled.view().block().ordering());
        assertTrue(h.gossiped(Message.RackError.class).isEmpty(), h.gossiped(Message.RackError.class).toString());
    }

    @Test
    void anUnprovisionedSledRunsNothingSaysSoOncePerEntryAndWritesNoRecord() throws Exception {
        SledHarness h = new SledHarness().signedUnprovisioned();
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(session(g), 2, "a", "*");
        h.boot(1);
        run(h, g, jobs);
        assertEquals(0, h.ledger.size());
        List<Message.RackError> errors = h.gossiped(Message.RackError.class);
        assertEquals(1, errors.size());
        assertEquals(Message.RackErrorKind.UNPROVISIONED, errors.get(0).kind());
        assertTrue(errors.get(0).detail().contains("locker provision --floor-epoch"), errors.get(0).detail());
        assertEquals(Message.SkipReason.BELOW_FLOOR, skips(h, jobs.get(0)).get(0).reason());
        assertTrue(h.a.contents().isEmpty() && h.b.contents().isEmpty(), "it never writes a record by itself");
        h.migrate(2);
        assertEquals(2, h.gossiped(Message.RackError.class).size(), "once per entry");
    }

    @Test
    void sessionsAtOrBelowTheFloorAreRefused() throws Exception {
        SledHarness h = new SledHarness().provisionSigned(100);
        SignedGrant atFloor = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(session(atFloor), 1, "a", "*");
        h.boot(1);
        run(h, atFloor, jobs);
        assertEquals(0, h.ledger.size());
        assertEquals(Message.SkipReason.BELOW_FLOOR, skips(h, jobs.get(0)).get(0).reason());
        SignedGrant above = Rack.grant(101, 2);
        List<SignedJob> next = Rack.jobs(session(above), 1, "b", "*");
        run(h, above, next);
        assertEquals(1, launches(h, next.get(0)));
    }

    @Test
    void aWholeRackColdBootResumesTheSessionAndNothingRunsTwice() throws Exception {
        // Scenario 2: the universe is gone after the cold boot; the grant is re-submitted.
        SledHarness h = new SledHarness().provisionSigned(0);
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(session(g), 4, "a", "*");
        h.boot(1);
        run(h, g, jobs.subList(0, 2));
        h.crash();
        h.boot(2);
        run(h, g, jobs);
        for (int i = 0; i < 4; i++) {
            assertEquals(1, launches(h, jobs.get(i)), "job " + i + " runs exactly once");
        }
        assertEquals(Message.SkipReason.ALREADY_HANDLED, skips(h, jobs.get(0)).get(0).reason());
        assertEquals(id(jobs.get(3)), h.signedLocker.newest().orElseThrow().committed().orElseThrow().job());
    }

    @Test
    void anOlderSessionIsRefusedWhereANewerOneCommittedAndAReplayedGrantRunsNothingTwice() throws Exception {
        // Scenarios 1 and 3: the older side's sled ran S1, then S2 (newer); back with S1 only.
        SledHarness h = new SledHarness().provisionSigned(0);
        SignedGrant s1 = Rack.grant(100, 1);
        SignedGrant s2 = Rack.grant(200, 2);
        List<SignedJob> old = Rack.jobs(session(s1), 3, "old", "*");
        List<SignedJob> newer = Rack.jobs(session(s2), 1, "new", "*");
        h.boot(1);
        run(h, s1, old.subList(0, 1));
        h.crash();
        h.boot(2);
        run(h, s2, newer);
        assertEquals(1, launches(h, newer.get(0)));
        h.crash();
        h.boot(3); // a universe where only the old session was ever heard of
        run(h, s1, old);
        assertEquals(1, launches(h, old.get(0)));
        assertEquals(0, launches(h, old.get(1)));
        assertEquals(0, launches(h, old.get(2)));
        assertEquals(Message.SkipReason.SUPERSEDED, skips(h, old.get(1)).get(0).reason());
        assertTrue(h.events(SledEvent.Screened.class).stream().anyMatch(e -> e.verdict() instanceof Verdict.Skip
                && ((Verdict.Skip) e.verdict()).rule().startsWith("6")), "rule 6 decided it");
    }

    @Test
    void aReusedEpochIsRefusedWithItsErrorAndNothingRuns() throws Exception {
        // Scenario 6, in both tie-break orders of the two session ids.
        for (int other = 2; other <= 9; other++) {
            SledHarness h = new SledHarness().provisionSigned(0);
            SignedGrant first = Rack.grant(100, 1);
            SignedGrant reused = Rack.grant(100, other);
            List<SignedJob> a = Rack.jobs(session(first), 1, "a", "*");
            List<SignedJob> b = Rack.jobs(session(reused), 1, "b", "*");
            h.boot(1);
            run(h, first, a);
            h.crash();
            h.boot(2);
            run(h, reused, b);
            assertEquals(0, launches(h, b.get(0)), "nonce " + other);
            List<Message.RackError> errors = h.gossiped(Message.RackError.class);
            assertEquals(1, errors.size(), "nonce " + other);
            assertEquals(Message.RackErrorKind.EPOCH_REUSE, errors.get(0).kind());
            assertTrue(h.gossiped(Message.JobErrored.class).stream().anyMatch(e -> e.job().equals(id(b.get(0)))
                    && e.kind() == Message.JobError.INVALID_JOB), "the job ends with the error");
        }
    }

    @Test
    void aMigrationReGossipsTheNewestGrantAndItsStop() throws Exception {
        SledHarness h = new SledHarness().provisionSigned(0);
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(session(g), 2, "a", "*");
        h.boot(1);
        run(h, g, jobs.subList(0, 1));
        h.migrate(2); // the winner's universe never heard of the session
        assertTrue(h.gossiped(Message.SessionGrant.class).stream().anyMatch(m -> m.grant().equals(g)));
        assertEquals(java.util.Optional.of(session(g)), h.sled.view().block().fold().activeSession()
                .map(s -> s.id()), "the session survives the contest without the operator");
        h.operator(new Message.JobStart(jobs.get(1)));
        h.sync();
        assertEquals(1, launches(h, jobs.get(1)));

        h.operator(new Message.SessionStop(session(g), "operator"));
        h.sync();
        h.migrate(3);
        List<Message.SessionStop> stops = h.gossiped(Message.SessionStop.class);
        assertEquals(1, stops.size(), "the stop travels with the grant");
        assertFalse(h.sled.view().block().fold().activeSession().isPresent(), "stopped stays stopped");
    }

    @Test
    void causalSlotsInASignedRackAreUntrustedAndRunNothing() throws Exception {
        SledHarness h = new SledHarness().provision(); // a causal record
        h.signed = true;
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(session(g), 1, "a", "*");
        h.boot(1);
        run(h, g, jobs);
        assertEquals(0, h.ledger.size());
        assertFalse(h.signedLocker.trusted());
        assertTrue(h.signedLocker.load().reason().contains("ordering"), h.signedLocker.load().reason());
        assertTrue(h.gossiped(Message.JobErrored.class).stream().anyMatch(e -> e.kind() == Message.JobError.IO));
    }
}
