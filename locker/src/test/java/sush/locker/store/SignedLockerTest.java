package sush.locker.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.locker.Fixtures;
import sush.locker.admission.SignedCommit;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Outcome;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedCodec;
import sush.locker.record.SignedRecord;
import sush.projections.fold.JobStatus;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionRank;

/** The locker over records of the signed ordering, the mode check, and conversion (ordered-sessions.md 3, 4, 6). */
class SignedLockerTest {
    private static final SessionId S = Fixtures.session("signed");
    private static final SessionRank RANK = new SessionRank(1_000, new KeyId(new byte[11]), S);
    private static final JobId J0 = Fixtures.job(S, 0);

    private static Locker<SignedRecord> open(Slots s, long life) throws LockerException {
        return Locker.open(RecordFormat.SIGNED, Fixtures.ME, s.both(), Entropy.seeded(life));
    }

    @Test
    void provisionedRecordsCommitAndLoadBackUnderTheSignedFormat() throws Exception {
        Slots s = new Slots();
        SignedRecord first = Locker.provision(RecordFormat.SIGNED, s.both(), Entropy.seeded(1),
                SignedRecord.provisioned(Fixtures.ME, 500));
        assertEquals(500, first.floor());
        SignedRecord committed;
        try (Locker<SignedRecord> l = open(s, 2)) {
            assertEquals(Load.Verdict.ADOPT, l.load().verdict());
            assertEquals(Optional.of(first), l.newest());
            Locker.Ticket<SignedRecord> t = l.reserve(n -> SignedCommit.build(n, new SignedCommit.Input(RANK, J0,
                    Fixtures.successor(J0))));
            l.store(t);
            committed = t.record();
            l.store(l.reserve(n -> SignedCommit.ended(n.orElseThrow(), J0, Outcome.ended(JobStatus.STOPPED, 0, ""))
                    .orElseThrow()));
        }
        s.crash();
        try (Locker<SignedRecord> l = open(s, 3)) {
            assertTrue(l.trusted());
            SignedRecord loaded = l.newest().orElseThrow();
            assertEquals(committed.committed().orElseThrow().job(), loaded.committed().orElseThrow().job());
            assertEquals(JobStatus.STOPPED, loaded.committed().orElseThrow().outcome().status());
            assertEquals(500, loaded.floor());
            assertThrows(IllegalStateException.class, () -> l.reserve(n -> SignedRecord.provisioned(Fixtures.ME, 500)),
                    "O1: the committed session never goes away");
        }
    }

    @Test
    void aRecordOfTheOtherOrderingIsUntrustedNamingTheMismatchBothWays() throws Exception {
        Slots signed = new Slots();
        Locker.provision(RecordFormat.SIGNED, signed.both(), Entropy.seeded(1), SignedRecord.provisioned(Fixtures.ME, 0));
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, signed.both(), Entropy.seeded(2))) {
            assertFalse(l.trusted());
            assertEquals(Load.Verdict.DISCARD, l.load().verdict());
            assertTrue(l.load().reason().contains("ordering"), l.load().reason());
            assertThrows(LockerException.class, () -> l.reserve(n -> BoundaryRecord.genesis(Fixtures.ME)));
        }
        Slots causal = new Slots();
        Locker.provision(RecordFormat.CAUSAL, causal.both(), Entropy.seeded(1), BoundaryRecord.genesis(Fixtures.ME));
        try (Locker<SignedRecord> l = open(causal, 2)) {
            assertFalse(l.trusted());
            assertTrue(l.load().reason().contains("ordering"), l.load().reason());
        }
    }

    @Test
    void convertTurnsACausalRecordIntoASignedOneWithTheFloor() throws Exception {
        Slots s = new Slots();
        Locker.provision(RecordFormat.CAUSAL, s.both(), Entropy.seeded(1), BoundaryRecord.genesis(Fixtures.ME));
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, s.both(), Entropy.seeded(2))) {
            SignedRecord r = l.convert(RecordFormat.SIGNED, c -> SignedRecord.provisioned(Fixtures.ME, 777));
            assertEquals(777, r.floor());
            assertFalse(l.trusted(), "a converted locker writes no more records of its old format");
            assertThrows(LockerException.class, () -> l.reserve(n -> BoundaryRecord.genesis(Fixtures.ME)));
        }
        s.crash();
        for (MemorySlot m : new MemorySlot[] {s.a, s.b}) {
            assertEquals(SignedRecord.provisioned(Fixtures.ME, 777),
                    SignedCodec.decode(SlotFile.decode(m.contents().orElseThrow()).body()));
        }
        try (Locker<SignedRecord> l = open(s, 3)) {
            assertEquals(Load.Verdict.ADOPT, l.load().verdict());
            assertEquals(777, l.newest().orElseThrow().floor());
        }
    }

    @Test
    void convertRefusesEmptyAndUntrustedSlotsAndChangesNothing() throws Exception {
        Slots empty = new Slots();
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, empty.both(), Entropy.seeded(1))) {
            LockerException e = assertThrows(LockerException.class,
                    () -> l.convert(RecordFormat.SIGNED, c -> SignedRecord.provisioned(Fixtures.ME, 1)));
            assertEquals(LockerException.Kind.NOT_EMPTY, e.kind());
        }
        assertTrue(empty.a.contents().isEmpty() && empty.b.contents().isEmpty());
        Slots bad = new Slots();
        bad.a.setContents(Optional.of(new byte[] {1, 2, 3}));
        bad.b.setContents(Optional.of(new byte[] {1, 2, 3}));
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, bad.both(), Entropy.seeded(1))) {
            LockerException e = assertThrows(LockerException.class,
                    () -> l.convert(RecordFormat.SIGNED, c -> SignedRecord.provisioned(Fixtures.ME, 1)));
            assertEquals(LockerException.Kind.UNTRUSTED, e.kind());
        }
        assertEquals(3, bad.a.contents().orElseThrow().length);
    }

    @Test
    void anInterruptedConversionLeavesSlotsEveryLoadDiscards() throws Exception {
        // Re-stamp writes two slots, then the converted record is written to slot a and the crash hits.
        Slots s = new Slots();
        Locker.provision(RecordFormat.CAUSAL, s.both(), Entropy.seeded(1), BoundaryRecord.genesis(Fixtures.ME));
        s.crash();
        Fixtures.crashAfter(3, s.a, s.b);
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, s.both(), Entropy.seeded(2))) {
            assertThrows(Fixtures.Crash.class,
                    () -> l.convert(RecordFormat.SIGNED, c -> SignedRecord.provisioned(Fixtures.ME, 9)));
        }
        s.crash();
        Fixtures.noCrash(s.a, s.b);
        try (Locker<SignedRecord> l = open(s, 3)) {
            assertFalse(l.trusted(), l.load().reason());
        }
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, s.both(), Entropy.seeded(4))) {
            assertFalse(l.trusted(), l.load().reason());
        }
    }

    @Test
    void formatsAreNamedByTheirOrdering() {
        assertEquals(RecordFormat.SIGNED, RecordFormat.of("signed"));
        assertEquals(RecordFormat.CAUSAL, RecordFormat.of("causal"));
        assertEquals("signed", RecordFormat.SIGNED.toString());
        assertThrows(IllegalArgumentException.class, () -> RecordFormat.of("Signed"));
    }
}
