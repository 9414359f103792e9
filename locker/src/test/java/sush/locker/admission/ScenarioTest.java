package sush.locker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.Fixtures;
import sush.locker.OneSled;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Outcome;
import sush.locker.store.Locker;
import sush.projections.fold.JobStatus;
import sush.projections.id.SessionId;
import sush.projections.message.Message.SkipReason;

/**
 * The scenarios of at-most-once.md section 10 that involve one sled's record, through the real
 * entry, admission, commit and locker. Versions are built by hand: {@code OP1}/{@code OP2} are
 * operators on the two sides of U1, {@code OPU2} one in U2, {@code X1..X6} the sled's entries.
 */
class ScenarioTest {
    private static final NetworkId U1 = Fixtures.universe(1);
    private static final NetworkId U2 = Fixtures.universe(2);
    private static final List<Id> IDS = Fixtures.ids(9);
    private static final Id OP1 = IDS.get(0);
    private static final Id OP2 = IDS.get(1);
    private static final Id OPU2 = IDS.get(2);
    private static final Id X1 = IDS.get(3);
    private static final Id X2 = IDS.get(4);
    private static final Id X3 = IDS.get(5);
    private static final Id X4 = IDS.get(6);
    private static final SessionId A = Fixtures.session("A");
    private static final SessionId B = Fixtures.session("B");
    private static final SessionId C = Fixtures.session("C");
    private static final SessionId D = Fixtures.session("D");
    private static final SessionId E = Fixtures.session("E");
    private static final Version NONE = Version.ZERO;

    private static Version tick(Version v, Id id) {
        return v.tick(id);
    }

    private static void admitted(Object v) {
        assertInstanceOf(Verdict.Admit.class, v);
    }

    private static void skipped(SkipReason reason, Verdict v) {
        assertEquals(reason, assertInstanceOf(Verdict.Skip.class, v).reason());
    }

    @Test
    void scenario3UniverseFlipFlopOnTheExactPathResumes() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        Version vC = tick(NONE, OPU2);
        x.migrate(U2, tick(vC, X2));
        admitted(x.offer(C, vC, 0, NONE));
        x.migrate(U1, tick(tick(vA, X1), X3));
        assertTrue(x.floor().isEmpty(), "U1 is recent: no floor");
        assertEquals(new Verdict.Adjudicate(), x.offer(A, vA, 0, NONE), "the re-sent A0 never runs again");
        admitted(x.offer(A, vA, 1, NONE));
    }

    @Test
    void scenario3UniverseFlipFlopOnTheBloomPathRefusesTheOldSession() throws Exception {
        OneSled x = new OneSled(true, 0, Admission::decide);
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        Version vC = tick(NONE, OPU2);
        x.migrate(U2, tick(vC, X2));
        admitted(x.offer(C, vC, 0, NONE));
        assertTrue(x.record().orElseThrow().burned().mightContain(U1));
        Version floor = tick(tick(tick(vA, X1), X3), X3);
        x.migrate(U1, floor);
        assertEquals(Optional.of(floor), x.floor(), "flip-flop floor");
        skipped(SkipReason.BELOW_FLOOR, x.offer(A, vA, 0, NONE));
        skipped(SkipReason.BELOW_FLOOR, x.offer(A, vA, 1, NONE));
        admitted(x.offer(D, tick(floor, OP1), 0, NONE));
    }

    @Test
    void scenario5LostSuffixIsAdjudicatedAndTheChainGoesOn() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        admitted(x.offer(A, vA, 1, NONE));
        x.crash();
        x.boot(U1, tick(tick(vA, X1), X2));
        skipped(SkipReason.ALREADY_HANDLED, x.offer(A, vA, 0, NONE));
        assertEquals(new Verdict.Adjudicate(), x.offer(A, vA, 1, NONE), "J2 is adjudicated from the record");
        admitted(x.offer(A, vA, 2, NONE));
    }

    private static void crashAfter(OneSled x, int writes) {
        Fixtures.crashAfter(writes, x.a, x.b);
    }

    private static void heal(OneSled x) {
        Fixtures.noCrash(x.a, x.b);
    }

    @Test
    void scenario6CrashAtEveryPointOfACommitNeverRunsTwice() throws Exception {
        // Life 2's first commit re-stamps (2 writes) then commits (2 writes): crash before each.
        for (int k = 0; k < 4; k++) {
            OneSled x = OneSled.provisioned();
            Version vA = tick(NONE, OP1);
            x.boot(U1, tick(vA, X1));
            admitted(x.offer(A, vA, 0, NONE));
            x.crash();
            x.boot(U1, tick(tick(vA, X1), X2));
            crashAfter(x, k);
            assertThrows(Fixtures.Crash.class, () -> x.offer(A, vA, 1, NONE));
            x.crash();
            heal(x);
            x.boot(U1, tick(tick(vA, X1), X3));
            assertTrue(x.locker().trusted(), x.locker().load().reason());
            boolean landed = x.record().orElseThrow().committed().orElseThrow().job().equals(Fixtures.job(A, 1));
            Verdict v = x.offer(A, vA, 1, NONE);
            // A store that landed without acknowledgement may have run: adjudicated, never re-run.
            assertEquals(landed, v instanceof Verdict.Adjudicate, "crash after " + k + " writes: " + v);
            assertEquals(!landed, x.ran(A, 1));
        }
    }

    @Test
    void scenario6CrashDuringAFirstCommitOrBeforeTheOutcomeWrite() throws Exception {
        for (int k = 0; k < 2; k++) {
            OneSled x = OneSled.unprovisioned();
            Version floor = tick(NONE, X1);
            x.boot(U1, floor);
            Version vD = tick(floor, OP1);
            crashAfter(x, k);
            assertThrows(Fixtures.Crash.class, () -> x.offer(D, vD, 0, NONE));
            x.crash();
            heal(x);
            x.boot(U1, tick(tick(vD, X1), X2));
            Verdict v = x.offer(D, vD, 0, NONE);
            if (k == 0) {
                // Section 9: no record yet, so the floor is raised again and the running session
                // is refused: the documented cost, never a re-run.
                skipped(SkipReason.BELOW_FLOOR, v);
            } else {
                assertEquals(new Verdict.Adjudicate(), v, "the torn first commit is restored and adjudicated");
            }
            assertFalse(x.ran(D, 0));
        }
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        x.crash(); // while A0 runs, before its outcome is written
        x.boot(U1, tick(tick(vA, X1), X2));
        assertEquals(new Verdict.Adjudicate(), x.offer(A, vA, 0, NONE));
        assertEquals(Outcome.COMMITTED, x.record().orElseThrow().committed().orElseThrow().outcome(),
                "adjudication will report Interrupted: no ending was recorded");
    }

    @Test
    void scenario13AMigrationWithACommitQueuedBuildsOnTheQueuedRecord() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        Locker<BoundaryRecord> l = x.locker();
        Commit.Input a0 = new Commit.Input(Fixtures.ME, U1, A, vA, Fixtures.job(A, 0), Fixtures.job(A, 1), false);
        Locker.Ticket<BoundaryRecord> queued = l.reserve(newest -> Commit.build(newest, a0));
        // The migration reads the newest record handed to the writer: the queued commit of A0.
        Entry e = Entry.enter(l.newest(), U2);
        assertTrue(e.floor().isEmpty());
        Version vC = tick(NONE, OPU2);
        Commit.Input c0 = new Commit.Input(Fixtures.ME, U2, C, vC, Fixtures.job(C, 0), Fixtures.job(C, 1), false);
        Locker.Ticket<BoundaryRecord> next = l.reserve(newest -> Commit.build(newest, c0));
        l.store(queued);
        l.store(next);
        BoundaryRecord r = l.newest().orElseThrow();
        assertEquals(U2, r.network());
        assertEquals(Fixtures.job(A, 0), r.left(U1).orElseThrow().committed().orElseThrow().job(),
                "U1's queued commit is remembered");
    }

    @Test
    void scenario13AnEndingWhileAnotherCommitIsQueuedChangesNothing() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        Locker<BoundaryRecord> l = x.locker();
        Commit.Input a1 = new Commit.Input(Fixtures.ME, U1, A, vA, Fixtures.job(A, 1), Fixtures.job(A, 2), false);
        Locker.Ticket<BoundaryRecord> queued = l.reserve(newest -> Commit.build(newest, a1));
        x.ended(A, 0, Outcome.ended(JobStatus.STOPPED, 0, ""));
        l.store(queued);
        assertEquals(Fixtures.job(A, 1), l.newest().orElseThrow().committed().orElseThrow().job(),
                "A0's ending never replaces the newer commit of A1");
    }

    @Test
    void scenario15WipeIsolatedBootAndFreshCommitThenJoiningTheOldUniverseRefusesItsSession() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        x.crash();
        x.wipe();
        Version floor2 = tick(NONE, X2);
        x.boot(U2, floor2);
        assertEquals(Optional.of(floor2), x.floor(), "no record: cause 2");
        admitted(x.offer(C, tick(floor2, OPU2), 0, NONE));
        assertTrue(x.record().orElseThrow().amnesiac());
        Version floor3 = tick(tick(vA, X1), X3);
        x.migrate(U1, floor3);
        assertEquals(Optional.of(floor3), x.floor(), "amnesiac and U1 unknown: cause 2");
        skipped(SkipReason.BELOW_FLOOR, x.offer(A, vA, 0, NONE));
    }

    @Test
    void scenario16ALostSessionStartCostsAtMostOneHop() throws Exception {
        OneSled x = OneSled.provisioned();
        Version ann1 = tick(NONE, X1);
        x.boot(U1, ann1);
        Version vA = tick(ann1, X1); // accepted by X, never gossiped before X died
        admitted(x.offer(A, vA, 0, NONE));
        x.crash();
        Version vB = tick(NONE, OP1);
        Version ann2 = tick(vB, X2);
        x.boot(U1, ann2);
        Version hop = tick(ann2, X2);
        skipped(SkipReason.BELOW_FLOOR, x.offer(B, vB, 0, hop));
        assertEquals(Optional.of(hop), x.floor());
        Version vD = tick(hop, OP1);
        admitted(x.offer(D, vD, 0, NONE));
        assertEquals(vD, x.record().orElseThrow().executed(), "the lost start is healed out of executed");
        x.crash();
        Version ann3 = tick(tick(vD, X2), X3);
        x.boot(U1, ann3);
        admitted(x.offer(D, vD, 1, NONE));
        admitted(x.offer(E, tick(ann3, OP1), 0, NONE));
    }

    private static void scenario18(OneSled x) throws Exception {
        Version vS1 = tick(NONE, OP1);
        Version ann1 = tick(vS1, X1);
        x.boot(U1, ann1);
        admitted(x.offer(A, vS1, 0, NONE));
        Version vC = tick(NONE, OPU2);
        x.migrate(U2, tick(vC, X2));
        admitted(x.offer(C, vC, 0, NONE));
        Version flip = tick(tick(NONE, X3), X3); // side 2 of U1 never heard of side 1
        x.migrate(U1, flip);
        assertEquals(Optional.of(flip), x.floor());
        Version vS2 = tick(flip, OP2);
        admitted(x.offer(B, vS2, 0, NONE));
        x.crash();
        Version ann4 = tick(tick(ann1, X1), X4); // back on side 1, where A is still live
        x.boot(U1, ann4);
        skipped(SkipReason.BELOW_FLOOR, x.offer(A, vS1, 0, tick(ann4, X4)));
    }

    @Test
    void scenario18FlipFlopThenHopBackNeverReruns() throws Exception {
        OneSled x = new OneSled(true, 0, Admission::decide);
        scenario18(x);
        assertTrue(x.log.stream().anyMatch(s -> s.endsWith(" hop")), String.join("\n", x.log));
    }

    @Test
    void scenario18IsADoubleExecutionIfRule8Admitted() throws Exception {
        OneSled broken = new OneSled(true, 0, in -> {
            Verdict v = Admission.decide(in);
            return v instanceof Verdict.Hop ? new Verdict.Admit("8 (broken)") : v;
        });
        AssertionError e = assertThrows(AssertionError.class, () -> scenario18(broken));
        assertTrue(e.getMessage().contains("ran twice"), e.getMessage());
    }

    @Test
    void scenario19AWipedSledRejoiningThroughAnEmptyPeerRefusesTheOldSession() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        x.crash();
        x.wipe();
        Version empty = tick(NONE, X2); // the peer it joined through holds nothing yet
        x.boot(U1, empty);
        assertEquals(Optional.of(empty), x.floor(), "raised even with an empty arrival");
        skipped(SkipReason.BELOW_FLOOR, x.offer(A, vA, 0, NONE));
        admitted(x.offer(D, tick(tick(vA, X2), OP1), 0, NONE));
    }

    @Test
    void scenario20AProvisionedSledMigratingMidSessionServesItAnUnprovisionedOneRefuses() throws Exception {
        Version vC = tick(NONE, OPU2);
        OneSled provisioned = OneSled.provisioned();
        provisioned.boot(U1, tick(NONE, X1));
        provisioned.migrate(U2, tick(vC, X2));
        admitted(provisioned.offer(C, vC, 0, NONE));

        OneSled bare = OneSled.unprovisioned();
        bare.boot(U1, tick(NONE, X1));
        Version floor = tick(vC, X2);
        bare.migrate(U2, floor);
        skipped(SkipReason.BELOW_FLOOR, bare.offer(C, vC, 0, NONE));
        admitted(bare.offer(D, tick(floor, OPU2), 0, NONE));
    }

    @Test
    void scenario8ASledWithoutARecordJoiningALiveSessionSkipsItAndRunsTheNext() throws Exception {
        OneSled x = OneSled.unprovisioned();
        Version vA = tick(NONE, OP1);
        Version floor = tick(vA, X1);
        x.boot(U1, floor);
        skipped(SkipReason.BELOW_FLOOR, x.offer(A, vA, 0, NONE));
        admitted(x.offer(B, tick(floor, OP1), 0, NONE));
    }

    @Test
    void scenario11RejoinThroughAPeerShowingAnOlderSessionSupersedesItWithoutAFloor() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        Version vB = tick(vA, OP2); // started after A
        x.boot(U1, tick(vB, X1));
        admitted(x.offer(B, vB, 0, NONE));
        x.crash();
        x.boot(U1, tick(vA, X2)); // the peer still shows only A
        skipped(SkipReason.SUPERSEDED, x.offer(A, vA, 0, NONE));
        assertTrue(x.floor().isEmpty(), "no floor: B, our committed session, must still resume");
        admitted(x.offer(B, vB, 1, NONE));
    }

    @Test
    void scenario12AHopRefusesTheOtherSidesSessionAndServesTheNextOne() throws Exception {
        OneSled x = OneSled.provisioned();
        Version vA = tick(NONE, OP1);
        x.boot(U1, tick(vA, X1));
        admitted(x.offer(A, vA, 0, NONE));
        x.crash();
        Version vB = tick(NONE, OP2);
        Version ann = tick(vB, X2);
        x.boot(U1, ann);
        Version hop = tick(ann, X2);
        skipped(SkipReason.BELOW_FLOOR, x.offer(B, vB, 0, hop));
        admitted(x.offer(D, tick(hop, OP2), 0, NONE));
    }
}
