package sush.locker.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.locker.Fixtures;
import sush.locker.record.RecordFormat;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Outcome;
import sush.locker.store.Load.Read;
import sush.locker.store.Load.Verdict;

/** Every row of the load table (at-most-once.md section 8). */
class LoadTest {
    private static final BoundaryRecord OLD = BoundaryRecord.genesis(Fixtures.ME);
    private static final BoundaryRecord NEW = new BoundaryRecord(Fixtures.ME, Fixtures.universe(1),
            Fixtures.ticks(Fixtures.ids(2).get(0), 2),
            Optional.of(Fixtures.committed(Fixtures.session("s"), 0, Outcome.COMMITTED)), List.of(),
            sush.locker.record.Bloom.EMPTY, false);

    private static Load<BoundaryRecord> judge(Read... reads) {
        return Load.judge(List.of(reads), RecordFormat.CAUSAL, Fixtures.ME);
    }

    private static Read present(byte[] b) {
        return new Read.Present(b);
    }

    @Test
    void bothDirectoriesWithoutFilesAreEmptyAndTrusted() {
        Load<BoundaryRecord> l = judge(new Read.Missing(), new Read.Missing());
        assertEquals(Verdict.EMPTY, l.verdict());
        assertTrue(l.trusted() && l.record().isEmpty());
    }

    @Test
    void equalBodiesAreAdoptedWhateverTheNonceOrSequence() {
        Load<BoundaryRecord> l = judge(present(Slots.file((byte) 1, 5, NEW)), present(Slots.file((byte) 2, 9, NEW)));
        assertEquals(Verdict.ADOPT, l.verdict());
        assertEquals(Optional.of(NEW), l.record());
    }

    @Test
    void oneMissingFileWithTheRestEqualIsRestoredMissingSlotFirst() {
        Load<BoundaryRecord> l = judge(new Read.Missing(), present(Slots.file((byte) 1, 5, NEW)));
        assertEquals(Verdict.RESTORE, l.verdict());
        assertEquals(Optional.of(NEW), l.record());
        assertEquals(List.of(0, 1), l.restampOrder());
        assertEquals(List.of(1, 0), judge(present(Slots.file((byte) 1, 5, NEW)), new Read.Missing()).restampOrder());
    }

    @Test
    void tornPairAdoptsNewestWrite() {
        Load<BoundaryRecord> l = judge(present(Slots.file((byte) 1, 6, NEW)), present(Slots.file((byte) 1, 5, OLD)));
        assertEquals(Verdict.TORN, l.verdict());
        assertEquals(Optional.of(NEW), l.record());
        assertEquals(List.of(1, 0), l.restampOrder(), "the slot holding the older body is re-stamped first");
    }

    @Test
    void bodiesDifferingAcrossNoncesAreDiscarded() {
        Load<BoundaryRecord> l = judge(present(Slots.file((byte) 1, 6, NEW)), present(Slots.file((byte) 2, 5, OLD)));
        assertEquals(Verdict.DISCARD, l.verdict());
        assertTrue(l.record().isEmpty() && !l.trusted());
    }

    @Test
    void bodiesDifferingWithEqualSequencesAreDiscarded() {
        assertEquals(Verdict.DISCARD, judge(present(Slots.file((byte) 1, 6, NEW)),
                present(Slots.file((byte) 1, 6, OLD))).verdict());
    }

    @Test
    void aFlippedBitIsADigestFailureAndDiscards() {
        byte[] bad = Slots.file((byte) 1, 6, NEW);
        bad[bad.length - 3] ^= 0x10;
        Load<BoundaryRecord> l = judge(present(bad), present(Slots.file((byte) 1, 6, NEW)));
        assertEquals(Verdict.DISCARD, l.verdict());
        assertTrue(l.reason().contains("digest"), l.reason());
    }

    @Test
    void aParseFailureDiscards() {
        assertEquals(Verdict.DISCARD, judge(present(new byte[] {1, 2, 3}), present(Slots.file((byte) 1, 6, NEW)))
                .verdict());
        byte[] noMagic = Slots.file((byte) 1, 6, NEW);
        noMagic[0] = 'X';
        assertEquals(Verdict.DISCARD, judge(present(noMagic), present(Slots.file((byte) 1, 6, NEW))).verdict());
    }

    @Test
    void anIoErrorOtherThanAMissingFileDiscards() {
        assertEquals(Verdict.DISCARD, judge(new Read.Failed(new IOException("EIO")),
                present(Slots.file((byte) 1, 6, NEW))).verdict());
        assertEquals(Verdict.DISCARD, judge(new Read.Failed(new java.nio.file.NoSuchFileException("/m2a")),
                new Read.Missing()).verdict(), "a missing directory is never an empty store");
    }

    @Test
    void aNewerFormatDiscards() {
        byte[] body = sush.locker.record.BoundaryCodec.encode(NEW);
        body[1] = 2;
        byte[] file = new SlotFile(new byte[32], 1, body).encode();
        Load<BoundaryRecord> l = judge(present(file), present(file));
        assertEquals(Verdict.DISCARD, l.verdict());
        assertTrue(l.reason().contains("NEWER_FORMAT"), l.reason());
    }

    @Test
    void anotherSledsRecordDiscards() {
        BoundaryRecord theirs = BoundaryRecord.genesis(Fixtures.OTHER);
        Load<BoundaryRecord> l = judge(present(Slots.file((byte) 1, 1, theirs)), present(Slots.file((byte) 1, 1, theirs)));
        assertEquals(Verdict.DISCARD, l.verdict());
        assertTrue(l.reason().contains("OTHER_SLED"), l.reason());
    }

    @Test
    void everyBitOfASlotFileFlippedIsDiscardedNamingTheField() {
        // Magic, process nonce, sequence number, digest and body: a change anywhere in one slot
        // (or the same change in both) is found, and the load table discards (section 8). Were
        // the nonce or the sequence left out of the digest, flipping them would adopt instead.
        byte[] good = Slots.file((byte) 1, 6, NEW);
        int magic = SlotFile.MAGIC.length;
        for (int i = 0; i < good.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = good.clone();
                bad[i] ^= (byte) (1 << bit);
                String field = i < magic ? "magic" : i < magic + SlotFile.NONCE_BYTES ? "nonce"
                        : i < magic + SlotFile.NONCE_BYTES + Long.BYTES ? "sequence"
                        : i < SlotFile.HEADER_BYTES ? "digest" : "body";
                Load<BoundaryRecord> one = judge(present(bad), present(good));
                assertEquals(Verdict.DISCARD, one.verdict(), field + " byte " + i + " bit " + bit + ": " + one.reason());
                assertTrue(one.reason().contains(i < magic ? "magic" : "digest"), field + " byte " + i + ": "
                        + one.reason());
                Load<BoundaryRecord> both = judge(present(bad), present(bad.clone()));
                assertEquals(Verdict.DISCARD, both.verdict(), "the same flip in both slots, " + field + " byte " + i);
            }
        }
    }

    @Test
    void withThreeSlotsOneMissingAndTwoDisagreeingIsDiscarded() {
        Load<BoundaryRecord> l = judge(new Read.Missing(), present(Slots.file((byte) 1, 6, NEW)), present(Slots.file((byte) 1, 5, OLD)));
        assertEquals(Verdict.DISCARD, l.verdict());
        assertTrue(l.reason().contains("lack a file"), l.reason());
    }

    @Test
    void withThreeSlotsATornWriteNeedsOneSingleNewest() {
        // Two slots share the highest sequence: no single newest write, whatever the third holds.
        assertEquals(Verdict.DISCARD, judge(present(Slots.file((byte) 1, 5, OLD)), present(Slots.file((byte) 1, 6, NEW)),
                present(Slots.file((byte) 1, 6, NEW))).verdict());
        Load<BoundaryRecord> one = judge(present(Slots.file((byte) 1, 5, OLD)), present(Slots.file((byte) 1, 5, OLD)),
                present(Slots.file((byte) 1, 6, NEW)));
        assertEquals(Verdict.TORN, one.verdict());
        assertEquals(Optional.of(NEW), one.record());
    }

    @Test
    void aSlotFileWithAnEmptyBodyDecodesAndOneShorterThanItsHeaderDoesNot() throws Exception {
        byte[] nonce = new byte[SlotFile.NONCE_BYTES];
        SlotFile empty = new SlotFile(nonce, 3, new byte[0]);
        byte[] bytes = empty.encode();
        assertEquals(SlotFile.HEADER_BYTES, bytes.length);
        assertEquals(empty, SlotFile.decode(bytes));
        assertEquals(empty.hashCode(), SlotFile.decode(bytes).hashCode());
        byte[] other = nonce.clone();
        other[0] = 1;
        // Equality is by nonce, sequence and body.
        org.junit.jupiter.api.Assertions.assertNotEquals(empty, new SlotFile(nonce, 4, new byte[0]));
        org.junit.jupiter.api.Assertions.assertNotEquals(empty, new SlotFile(nonce, 3, new byte[1]));
        org.junit.jupiter.api.Assertions.assertNotEquals(empty, new SlotFile(other, 3, new byte[0]));
        org.junit.jupiter.api.Assertions.assertNotEquals(empty, (Object) "a string");
        assertThrows(SlotFile.SlotFileException.class, () -> SlotFile.decode(java.util.Arrays.copyOf(bytes,
                bytes.length - 1)));
    }
}
