package sush.locker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.Fixtures;
import sush.locker.record.Bloom;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Left;
import sush.locker.record.Outcome;
import sush.projections.fold.JobStatus;
import sush.projections.id.SessionId;

/** Section 5 (which past applies at an entry) and the records of sections 4 and 6. */
class EntryAndCommitTest {
    private static final List<Id> IDS = Fixtures.ids(2);
    private static final Version V1 = Fixtures.ticks(IDS.get(0), 1);
    private static final Version V2 = V1.tick(IDS.get(0));
    private static final SessionId S = Fixtures.session("s");

    private static Commit.Input commit(NetworkId n, Version vS, int job, boolean firstAboveFloor) {
        return new Commit.Input(Fixtures.ME, n, S, vS, Fixtures.job(S, job), Fixtures.job(S, job + 1), firstAboveFloor);
    }

    private static BoundaryRecord inUniverse(int u, Version vS) {
        return Commit.build(Optional.empty(), commit(Fixtures.universe(u), vS, 0, false));
    }

    @Test
    void noRecordRaisesTheNoHistoryFloor() {
        Entry e = Entry.enter(Optional.empty(), Fixtures.universe(1));
        assertEquals(Optional.of(FloorCause.NO_TRUSTWORTHY_HISTORY), e.floor());
        assertTrue(e.snapshot().isEmpty());
    }

    @Test
    void theRecordsOwnUniverseIsTheSnapshotAsIs() {
        BoundaryRecord r = inUniverse(1, V1);
        assertEquals(new Entry(Optional.of(r), Optional.empty()), Entry.enter(Optional.of(r), Fixtures.universe(1)));
    }

    @Test
    void aRecentUniverseSwapsItsPastInWithoutAFloor() {
        BoundaryRecord r = Commit.build(Optional.of(inUniverse(1, V1)), commit(Fixtures.universe(2), V2, 1, false));
        Entry e = Entry.enter(Optional.of(r), Fixtures.universe(1));
        assertTrue(e.floor().isEmpty());
        BoundaryRecord s = e.snapshot().orElseThrow();
        assertEquals(Fixtures.universe(1), s.network());
        assertEquals(V1, s.executed());
        assertEquals(Fixtures.job(S, 0), s.committed().orElseThrow().job());
        assertEquals(List.of(new Left(Fixtures.universe(2), V2, r.committed())), s.recent());
    }

    @Test
    void aBurnedUniverseRaisesTheFlipFlopFloor() {
        BoundaryRecord r = Commit.build(Optional.of(inUniverse(1, V1)), commit(Fixtures.universe(2), V2, 1, false), 0);
        assertTrue(r.recent().isEmpty() && r.burned().mightContain(Fixtures.universe(1)));
        Entry e = Entry.enter(Optional.of(r), Fixtures.universe(1));
        assertEquals(Optional.of(FloorCause.UNIVERSE_FLIP_FLOP), e.floor());
        assertEquals(Optional.of(r), e.snapshot());
    }

    @Test
    void anUnknownUniverseRaisesAFloorOnlyForAnAmnesiacRecord() {
        BoundaryRecord amnesiac = inUniverse(1, V1);
        assertTrue(amnesiac.amnesiac(), "created after an Empty load");
        assertEquals(Optional.of(FloorCause.NO_TRUSTWORTHY_HISTORY),
                Entry.enter(Optional.of(amnesiac), Fixtures.universe(3)).floor());
        BoundaryRecord provisioned = Commit.build(Optional.of(BoundaryRecord.genesis(Fixtures.ME)),
                commit(Fixtures.universe(1), V1, 0, false));
        assertFalse(provisioned.amnesiac());
        assertTrue(Entry.enter(Optional.of(provisioned), Fixtures.universe(3)).floor().isEmpty());
    }

    @Test
    void aCommitInAnotherUniverseMovesThePastIntoRecentAndResetsExecuted() {
        BoundaryRecord b = inUniverse(1, V1);
        Version there = Fixtures.ticks(IDS.get(1), 1);
        BoundaryRecord r = Commit.build(Optional.of(b), commit(Fixtures.universe(2), there, 0, false));
        assertEquals(Fixtures.universe(2), r.network());
        assertEquals(there, r.executed(), "executed restarts from bottom in the new universe");
        assertEquals(List.of(new Left(Fixtures.universe(1), V1, b.committed())), r.recent());
        assertTrue(r.amnesiac(), "amnesiac carries over");
    }

    @Test
    void recentKeepsSixteenAndEvictsTheLeastRecentlyLeftIntoTheFilter() {
        BoundaryRecord r = inUniverse(0, V1);
        for (int u = 1; u <= BoundaryRecord.MAX_RECENT + 2; u++) {
            r = Commit.build(Optional.of(r), commit(Fixtures.universe(u), V1, 0, false));
        }
        assertEquals(BoundaryRecord.MAX_RECENT, r.recent().size());
        assertEquals(Fixtures.universe(2), r.recent().get(0).network());
        assertTrue(r.burned().mightContain(Fixtures.universe(0)) && r.burned().mightContain(Fixtures.universe(1)));
        for (int u = 0; u <= BoundaryRecord.MAX_RECENT + 2; u++) {
            assertTrue(r.knows(Fixtures.universe(u)), "I1 for universe " + u);
        }
    }

    @Test
    void theFirstCommitAboveAFloorResetsExecutedAndLaterOnesJoin() {
        Version lost = Fixtures.ticks(IDS.get(1), 5);
        BoundaryRecord b = inUniverse(1, lost);
        BoundaryRecord first = Commit.build(Optional.of(b), commit(Fixtures.universe(1), V1, 1, true));
        assertEquals(V1, first.executed(), "the lost start is healed away");
        BoundaryRecord second = Commit.build(Optional.of(first), commit(Fixtures.universe(1), V2, 2, false));
        assertEquals(V2, second.executed());
        assertEquals(Fixtures.job(S, 3), second.committed().orElseThrow().successor());
    }

    @Test
    void outcomeUpdatesFollowThePrecedenceAndTouchOnlyTheirJob() {
        BoundaryRecord r = inUniverse(1, V1);
        BoundaryRecord stopped = Commit.ended(r, Fixtures.job(S, 0), Outcome.ended(JobStatus.STOPPED, 0, ""))
                .orElseThrow();
        assertEquals(JobStatus.STOPPED, stopped.committed().orElseThrow().outcome().status());
        assertTrue(Commit.ended(stopped, Fixtures.job(S, 0), Outcome.ended(JobStatus.INTERRUPTED, 0, "")).isEmpty(),
                "a lower rank never replaces a higher one");
        assertTrue(Commit.ended(r, Fixtures.job(S, 1), Outcome.ended(JobStatus.STOPPED, 0, "")).isEmpty(),
                "another job's ending changes nothing");
        BoundaryRecord interrupted = Commit.ended(r, Fixtures.job(S, 0), Outcome.ended(JobStatus.INTERRUPTED, 0, ""))
                .orElseThrow();
        assertTrue(Commit.ended(interrupted, Fixtures.job(S, 0), Outcome.ended(JobStatus.STOPPED, 0, "")).isPresent(),
                "a late real ending replaces Interrupted");
    }

    @Test
    void anEndingOfAJobLeftInARecentUniverseUpdatesItThere() {
        BoundaryRecord r = Commit.build(Optional.of(inUniverse(1, V1)), commit(Fixtures.universe(2), V2, 1, false));
        BoundaryRecord after = Commit.ended(r, Fixtures.job(S, 0), Outcome.ended(JobStatus.STOPPED, 3, "")).orElseThrow();
        assertEquals(Outcome.ended(JobStatus.STOPPED, 3, ""), after.recent().get(0).committed().orElseThrow().outcome());
        assertEquals(r.committed(), after.committed());
    }

    @Test
    void aCommitBuiltOnARecordStillHoldingTheUniverseAsRecentSwapsItInFirst() {
        BoundaryRecord r = Commit.build(Optional.of(inUniverse(1, V1)), commit(Fixtures.universe(2), V2, 1, false));
        BoundaryRecord back = Commit.build(Optional.of(r), commit(Fixtures.universe(1), V2, 2, false));
        assertEquals(V1.join(V2), back.executed(), "U1's executed comes back from recent");
        assertEquals(Fixtures.universe(2), back.recent().get(0).network());
    }

    @Test
    void aRecordThatForgetsAUniverseIsRejected() {
        BoundaryRecord r = inUniverse(1, V1);
        BoundaryRecord forgot = new BoundaryRecord(Fixtures.ME, Fixtures.universe(2), V1, Optional.empty(), List.of(),
                Bloom.EMPTY, true);
        assertThrows(IllegalStateException.class, () -> BoundaryRecord.checkI1(Optional.of(r), forgot));
    }

    @Test
    void anEndingTouchesARecentUniverseOnlyForItsJobAndOnlyUpward() {
        BoundaryRecord r = Commit.build(Optional.of(inUniverse(1, V1)), commit(Fixtures.universe(2), V2, 1, false));
        assertTrue(Commit.ended(r, Fixtures.job(S, 7), Outcome.ended(JobStatus.STOPPED, 0, "")).isEmpty(),
                "a job in neither the current nor a recent universe changes nothing");
        BoundaryRecord after = Commit.ended(r, Fixtures.job(S, 0), Outcome.ended(JobStatus.STOPPED, 3, "")).orElseThrow();
        assertTrue(Commit.ended(after, Fixtures.job(S, 0), Outcome.ended(JobStatus.INTERRUPTED, 0, "")).isEmpty(),
                "a lower rank never replaces a recent universe's ending either");
    }
}
