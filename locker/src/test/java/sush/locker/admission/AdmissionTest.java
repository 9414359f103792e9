package sush.locker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.Fixtures;
import sush.locker.record.Bloom;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Outcome;
import sush.projections.id.SessionId;
import sush.projections.message.Message.SkipReason;

/** Every rule of at-most-once.md section 6, first match wins. */
class AdmissionTest {
    private static final NetworkId N = Fixtures.universe(1);
    private static final List<Id> IDS = Fixtures.ids(3);
    private static final Version V1 = Fixtures.ticks(IDS.get(0), 1);
    private static final Version V2 = V1.tick(IDS.get(0));
    private static final Version OTHER_SIDE = Fixtures.ticks(IDS.get(1), 1);
    private static final SessionId S = Fixtures.session("s");
    private static final SessionId T = Fixtures.session("t");

    private static BoundaryRecord record(NetworkId n, Version executed, SessionId committed) {
        return new BoundaryRecord(Fixtures.ME, n, executed, Optional.of(Fixtures.committed(committed, 0,
                Outcome.COMMITTED)), List.of(), Bloom.EMPTY, false);
    }

    private static Verdict decide(boolean trusted, Optional<Version> floor, Optional<BoundaryRecord> snapshot,
            SessionId s, Version vS, int job, Admission.Position p) {
        return Admission.decide(new Admission.Input(trusted, floor, snapshot, N, s, vS, Fixtures.job(s, job), p));
    }

    private static Verdict atHead(Optional<Version> floor, Optional<BoundaryRecord> snapshot, SessionId s, Version vS) {
        return decide(true, floor, snapshot, s, vS, 1, Admission.Position.AT_HEAD);
    }

    @Test
    void rule1AnUntrustedStoreRefusesEverything() {
        Verdict v = decide(false, Optional.empty(), Optional.empty(), S, V2, 1, Admission.Position.AT_HEAD);
        assertInstanceOf(Verdict.Refuse.class, v);
    }

    @Test
    void rule2AdmitsOnlyStartsAboveTheFloor() {
        assertInstanceOf(Verdict.Admit.class, atHead(Optional.of(V1), Optional.empty(), S, V2));
        assertEquals(new Verdict.Skip(SkipReason.BELOW_FLOOR, "2: started at or below the floor"),
                atHead(Optional.of(V2), Optional.empty(), S, V1));
        assertEquals(SkipReason.BELOW_FLOOR, ((Verdict.Skip) atHead(Optional.of(V1), Optional.empty(), S, V1)).reason(),
                "equal is not above");
        assertEquals(SkipReason.BELOW_FLOOR,
                ((Verdict.Skip) atHead(Optional.of(V1), Optional.empty(), S, OTHER_SIDE)).reason(), "concurrent");
    }

    @Test
    void rule2OutranksTheRecord() {
        // Even the committed session is refused below a floor: the floor is the stronger fact.
        assertInstanceOf(Verdict.Skip.class, atHead(Optional.of(V2), Optional.of(record(N, V1, S)), S, V1));
    }

    @Test
    void rule3AdmitsWithoutARecord() {
        assertEquals(new Verdict.Admit("3: no record"), atHead(Optional.empty(), Optional.empty(), S, V1));
    }

    @Test
    void rule4AdmitsInAUniverseNeverCommittedIn() {
        assertEquals(new Verdict.Admit("4: never committed in this universe"),
                atHead(Optional.empty(), Optional.of(record(Fixtures.universe(2), V2, T)), S, V1));
        assertInstanceOf(Verdict.Admit.class, atHead(Optional.empty(),
                Optional.of(BoundaryRecord.genesis(Fixtures.ME)), S, V1), "a provisioned sled's genesis record");
    }

    @Test
    void rule5AdmitsTheCommittedSessionWhoseHeadWasMoved() {
        assertEquals(new Verdict.Admit("5: the committed session resumes"),
                atHead(Optional.empty(), Optional.of(record(N, V2, S)), S, V1));
    }

    @Test
    void rule6AdmitsASessionStartedAfterEverythingExecuted() {
        assertEquals(new Verdict.Admit("6: started after everything executed here"),
                atHead(Optional.empty(), Optional.of(record(N, V1, T)), S, V2));
    }

    @Test
    void rule7SkipsASupersededSessionWithoutAFloor() {
        assertEquals(new Verdict.Skip(SkipReason.SUPERSEDED, "7: at or below what was executed here"),
                atHead(Optional.empty(), Optional.of(record(N, V2, T)), S, V1));
        assertInstanceOf(Verdict.Skip.class, atHead(Optional.empty(), Optional.of(record(N, V1, T)), S, V1), "equal");
    }

    @Test
    void rule8HopsOnASessionConcurrentWithWhatWasExecuted() {
        assertEquals(new Verdict.Hop(), atHead(Optional.empty(), Optional.of(record(N, V1, T)), S, OTHER_SIDE));
    }

    @Test
    void aJobBehindTheHeadIsAlreadyHandled() {
        Verdict v = decide(true, Optional.empty(), Optional.empty(), S, V2, 0, Admission.Position.BEHIND_HEAD);
        assertEquals(SkipReason.ALREADY_HANDLED, ((Verdict.Skip) v).reason());
    }

    @Test
    void theSnapshotsCommittedJobIsLeftToAdjudication() {
        Verdict v = decide(true, Optional.empty(), Optional.of(record(N, V1, S)), S, V1, 0,
                Admission.Position.BEHIND_HEAD);
        assertEquals(new Verdict.Adjudicate(), v);
        Verdict elsewhere = Admission.decide(new Admission.Input(true, Optional.empty(),
                Optional.of(record(Fixtures.universe(2), V1, S)), N, S, V1, Fixtures.job(S, 0),
                Admission.Position.BEHIND_HEAD));
        assertInstanceOf(Verdict.Skip.class, elsewhere, "a committed job of another universe is not ours to adjudicate");
    }
}
