package sush.locker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.locker.Fixtures;
import sush.locker.record.Outcome;
import sush.locker.record.SignedCommitted;
import sush.locker.record.SignedRecord;
import sush.projections.fold.JobStatus;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionRank;
import sush.projections.message.Message.SkipReason;

/** Every rule of ordered-sessions.md section 5, first match wins, and the commit builder's O1. */
class SignedAdmissionTest {
    private static final KeyId SIGNER_A = key(1);
    private static final KeyId SIGNER_B = key(2);
    private static final long FLOOR = 1_000;

    private static KeyId key(int b) {
        byte[] id = new byte[11];
        id[0] = (byte) b;
        return new KeyId(id);
    }

    private static SessionRank rank(long epoch, KeyId signer, String name) {
        return new SessionRank(epoch, signer, Fixtures.session(name));
    }

    private static final SessionRank S = rank(2_000, SIGNER_A, "s");

    private static SignedRecord committedTo(SessionRank s) {
        return new SignedRecord(Fixtures.ME, FLOOR, Optional.of(new SignedCommitted(s, Fixtures.job(s.session(), 0),
                Fixtures.successor(Fixtures.job(s.session(), 0)), Outcome.COMMITTED)));
    }

    private static Verdict decide(boolean trusted, Optional<SignedRecord> record, SessionRank s, int job,
            Admission.Position p) {
        return SignedAdmission.decide(new SignedAdmission.Input(trusted, record, s, Fixtures.job(s.session(), job), p));
    }

    private static Verdict atHead(Optional<SignedRecord> record, SessionRank s, int job) {
        return decide(true, record, s, job, Admission.Position.AT_HEAD);
    }

    @Test
    void rule1AnUntrustedStoreRefusesEverything() {
        assertInstanceOf(Verdict.Refuse.class, decide(false, Optional.of(SignedRecord.provisioned(Fixtures.ME, 0)), S,
                1, Admission.Position.AT_HEAD));
        assertInstanceOf(Verdict.Refuse.class, decide(false, Optional.of(committedTo(S)), S, 0,
                Admission.Position.AT_HEAD), "even the committed job: nothing is known");
    }

    @Test
    void theCommittedJobIsAdjudicatedAndAJobBehindTheHeadIsAlreadyHandled() {
        assertInstanceOf(Verdict.Adjudicate.class, atHead(Optional.of(committedTo(S)), S, 0));
        Verdict behind = decide(true, Optional.of(committedTo(S)), S, 5, Admission.Position.BEHIND_HEAD);
        assertEquals(SkipReason.ALREADY_HANDLED, assertInstanceOf(Verdict.Skip.class, behind).reason());
        Verdict fresh = decide(true, Optional.of(SignedRecord.provisioned(Fixtures.ME, 0)), S, 0,
                Admission.Position.BEHIND_HEAD);
        assertEquals(SkipReason.ALREADY_HANDLED, assertInstanceOf(Verdict.Skip.class, fresh).reason());
        // The same job number of another session is not the committed job.
        SessionRank t = rank(3_000, SIGNER_A, "t");
        assertInstanceOf(Verdict.Admit.class, atHead(Optional.of(committedTo(S)), t, 0));
    }

    @Test
    void rule2WithoutARecordNothingRuns() {
        Verdict v = atHead(Optional.empty(), S, 0);
        assertEquals(SkipReason.BELOW_FLOOR, assertInstanceOf(Verdict.Skip.class, v).reason());
        assertTrue(((Verdict.Skip) v).rule().startsWith("2:"), v.toString());
    }

    @Test
    void rule3SessionsAtOrBelowTheFloorAreRefusedAndOneAboveIsAdmitted() {
        Optional<SignedRecord> r = Optional.of(SignedRecord.provisioned(Fixtures.ME, FLOOR));
        for (long epoch : new long[] {0, FLOOR - 1, FLOOR}) {
            Verdict v = atHead(r, rank(epoch, SIGNER_B, "f"), 0);
            assertEquals(SkipReason.BELOW_FLOOR, assertInstanceOf(Verdict.Skip.class, v).reason(), "epoch " + epoch);
            assertTrue(((Verdict.Skip) v).rule().startsWith("3:"));
        }
        Verdict above = atHead(r, rank(FLOOR + 1, SIGNER_A, "f"), 0);
        assertEquals("4: nothing committed", assertInstanceOf(Verdict.Admit.class, above).rule());
    }

    @Test
    void rules5To8AgainstTheCommittedSession() {
        Optional<SignedRecord> r = Optional.of(committedTo(S));
        assertEquals("5: the committed session resumes", assertInstanceOf(Verdict.Admit.class, atHead(r, S, 1)).rule());
        // Older: a smaller epoch, or the same epoch from a signer that sorts first.
        for (SessionRank older : new SessionRank[] {rank(1_999, SIGNER_B, "o"), rank(1_001, SIGNER_A, "o")}) {
            Verdict v = atHead(r, older, 0);
            assertEquals(SkipReason.SUPERSEDED, assertInstanceOf(Verdict.Skip.class, v).reason(), older.toString());
        }
        SessionRank sameEpochOtherSigner = rank(2_000, SIGNER_B, "b");
        assertEquals("8: newer than the committed session",
                assertInstanceOf(Verdict.Admit.class, atHead(r, sameEpochOtherSigner, 0)).rule(),
                "signer bytes break an epoch tie");
        SessionRank committedByB = rank(2_000, SIGNER_B, "b2");
        assertEquals(SkipReason.SUPERSEDED, assertInstanceOf(Verdict.Skip.class,
                atHead(Optional.of(committedTo(committedByB)), S, 0)).reason(), "and the other way round");
        // Rule 7: the same place in the order, another session: the signer reused an epoch.
        for (String name : new String[] {"a", "z"}) {
            Verdict v = atHead(r, rank(2_000, SIGNER_A, name), 0);
            assertTrue(assertInstanceOf(Verdict.EpochReuse.class, v).why().contains("epoch 2000"), v.toString());
        }
        assertInstanceOf(Verdict.Admit.class, atHead(r, rank(2_001, SIGNER_A, "n"), 0));
    }

    @Test
    void theRankOrdersByEpochThenSignerThenSession() {
        SessionRank a = rank(5, SIGNER_A, "x");
        assertTrue(rank(6, SIGNER_A, "x").newerThan(a));
        assertTrue(rank(5, SIGNER_B, "x").newerThan(a));
        assertTrue(a.newerThan(rank(4, SIGNER_B, "x")));
        SessionRank y = rank(5, SIGNER_A, "y");
        assertTrue(a.samePlace(y) && !a.equals(y));
        assertTrue(a.newerThan(y) != y.newerThan(a), "a reused epoch still orders the two one way");
        assertEquals(0, a.compareTo(rank(5, SIGNER_A, "x")));
        assertTrue(!a.samePlace(rank(5, SIGNER_B, "x")) && !a.samePlace(rank(6, SIGNER_A, "x")));
        byte[] high = new byte[11];
        high[0] = (byte) 0x80;
        assertTrue(rank(5, new KeyId(high), "x").newerThan(rank(5, SIGNER_B, "x")), "signer bytes compare unsigned");
        assertThrows(IllegalArgumentException.class, () -> rank(-1, SIGNER_A, "x"));
    }

    @Test
    void aCommitNamesTheJobKeepsTheFloorAndNeverMovesTheSessionBack() {
        SignedRecord provisioned = SignedRecord.provisioned(Fixtures.ME, FLOOR);
        JobId j = Fixtures.job(S.session(), 3);
        SignedRecord first = SignedCommit.build(Optional.of(provisioned),
                new SignedCommit.Input(S, j, Fixtures.successor(j)));
        assertEquals(FLOOR, first.floor());
        SignedCommitted c = first.committed().orElseThrow();
        assertEquals(S, c.session());
        assertEquals(j, c.job());
        assertEquals(Fixtures.successor(j), c.successor());
        assertEquals(Outcome.COMMITTED, c.outcome());
        SessionRank older = rank(1_500, SIGNER_A, "old");
        JobId k = Fixtures.job(older.session(), 0);
        assertThrows(IllegalStateException.class, () -> SignedCommit.build(Optional.of(first),
                new SignedCommit.Input(older, k, Fixtures.successor(k))), "O1");
        assertThrows(IllegalStateException.class, () -> SignedCommit.build(Optional.empty(),
                new SignedCommit.Input(S, j, Fixtures.successor(j))), "no record: nothing is committed");
        assertThrows(IllegalArgumentException.class, () -> SignedCommit.build(Optional.of(provisioned),
                new SignedCommit.Input(rank(FLOOR, SIGNER_B, "f"), j, Fixtures.successor(j))), "at the floor");
        // The same session again, and a newer one: both fine.
        SignedRecord again = SignedCommit.build(Optional.of(first), new SignedCommit.Input(S, Fixtures.successor(j),
                Fixtures.successor(Fixtures.successor(j))));
        assertEquals(S, again.committed().orElseThrow().session());
        SessionRank newer = rank(2_500, SIGNER_B, "new");
        assertEquals(newer, SignedCommit.build(Optional.of(again), new SignedCommit.Input(newer, k,
                Fixtures.successor(k))).committed().orElseThrow().session());
    }

    @Test
    void anEndingUpdatesOnlyTheCommittedJobAndOnlyUpward() {
        SignedRecord r = committedTo(S);
        JobId j = r.committed().orElseThrow().job();
        Outcome stopped = Outcome.ended(JobStatus.STOPPED, 0, "");
        SignedRecord ended = SignedCommit.ended(r, j, stopped).orElseThrow();
        assertEquals(stopped, ended.committed().orElseThrow().outcome());
        assertEquals(r.floor(), ended.floor());
        assertEquals(Optional.empty(), SignedCommit.ended(r, Fixtures.successor(j), stopped), "another job");
        assertEquals(Optional.empty(), SignedCommit.ended(ended, j, Outcome.COMMITTED), "never downward");
        assertEquals(Optional.empty(), SignedCommit.ended(SignedRecord.provisioned(Fixtures.ME, 0), j, stopped));
    }

    @Test
    void recordsRefuseACommittedSessionAtTheFloorAndO1RefusesAnotherSledOrFloor() {
        assertThrows(IllegalArgumentException.class, () -> new SignedRecord(Fixtures.ME, 2_000,
                committedTo(S).committed()));
        assertThrows(IllegalArgumentException.class, () -> SignedRecord.provisioned(Fixtures.ME, -1));
        assertThrows(IllegalArgumentException.class, () -> SignedRecord.provisioned("", 0));
        SignedRecord r = committedTo(S);
        assertThrows(IllegalStateException.class, () -> SignedRecord.checkO1(Optional.of(r),
                new SignedRecord(Fixtures.OTHER, FLOOR, r.committed())));
        assertThrows(IllegalStateException.class, () -> SignedRecord.checkO1(Optional.of(r),
                new SignedRecord(Fixtures.ME, FLOOR - 1, r.committed())));
        assertThrows(IllegalStateException.class, () -> SignedRecord.checkO1(Optional.of(r),
                SignedRecord.provisioned(Fixtures.ME, FLOOR)), "the committed session is never forgotten");
        SignedRecord.checkO1(Optional.of(r), r);
        SignedRecord.checkO1(Optional.empty(), r);
        assertEquals(Optional.of(new SessionId(S.session().toBytes())), r.committed().map(c -> c.session().session()));
    }
}
