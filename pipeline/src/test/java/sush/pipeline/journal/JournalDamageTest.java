package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.wire.DocumentContext;
import sush.gossip.Entropy;
import sush.gossip.set.NetworkId;
import sush.pipeline.Rack;
import sush.projections.fixtures.Signers;

/**
 * Damaged records (issue 35) where they are counted: the index of each damage and the records
 * it passed over, plain or sealed, streamed or stopped, and excerpts too short to be records.
 */
class JournalDamageTest {
    private static final byte[] KEY = new byte[32];

    static {
        KEY[5] = 9;
    }

    @TempDir
    Path dir;

    /** One life (opening) of {@code records} records, the first an entry, its segment from {@code seed}. */
    private void life(Optional<byte[]> key, long seed, int records) {
        try (Journal j = Journal.open(dir, key, Entropy.seeded(seed))) {
            j.append(new JournalRecord.Entered(seed, NetworkId.BOOTSTRAPPING, "START"));
            for (int i = 1; i < records; i++) {
                j.append(new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "", seed + "." + i));
            }
        }
    }

    /** Alters record {@code counter} of the life opened with {@code seed}: its body's first byte (sealed: past the nonce). */
    private void damage(boolean sealed, long seed, long counter) throws Exception {
        byte[] segment = new byte[Long.BYTES];
        Entropy.seeded(seed).nextBytes(segment);
        byte[] header = ByteBuffer.allocate(17).put((byte) (sealed ? 1 : 0)).put(segment).putLong(counter).array();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(Journal.CYCLE_SUFFIX)).toList();
        }
        for (Path f : files) {
            byte[] bytes = Files.readAllBytes(f);
            int at = JournalLifecycleTest.indexOf(bytes, header);
            if (at >= 0) {
                bytes[at + 17 + (sealed ? Sealer.NONCE_BYTES + 3 : 0)] ^= 0x7F;
                Files.write(f, bytes);
                return;
            }
        }
        throw new AssertionError("record " + counter + " of life " + seed + " not found");
    }

    @Test
    void eachDamageSaysWhereItIsAndHowManyRecordsItPassedOver() throws Exception {
        life(Optional.empty(), 1, 5);
        life(Optional.empty(), 2, 5);
        life(Optional.empty(), 3, 2);
        damage(false, 1, 1);
        damage(false, 2, 2);
        List<JournalRecord> read = new ArrayList<>();
        List<Journal.Damage> damages = new ArrayList<>();
        Journal.read(dir, Optional.empty(), read::add, Optional.of(damages::add));
        assertEquals(2, damages.size(), damages.toString());
        assertEquals(1, damages.get(0).excerpt());
        assertEquals(4, damages.get(0).skipped(), "the rest of the first life");
        assertEquals(7, damages.get(1).excerpt(), "five records of the first life, then two of the second");
        assertEquals(3, damages.get(1).skipped());
        assertEquals(5, read.size(), read.toString());
    }

    /** A plain journal's replay (folded as read) shows the damage as a step of its own, counted like a record. */
    @Test
    void aPlainReplayShowsTheDamageAsAStepAndCountsOn() throws Exception {
        life(Optional.empty(), 1, 5);
        life(Optional.empty(), 2, 3);
        damage(false, 1, 2);
        List<Replay.Step> steps = new ArrayList<>();
        Replay.Summary s = Replay.stream(dir, Optional.empty(), Rack.ME, Signers.TRUST, -1, steps::add);
        assertEquals(6, s.records());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), steps.stream().map(Replay.Step::index).toList());
        assertNull(steps.get(2).record());
        assertTrue(steps.get(2).note().startsWith("damaged: record 2") && steps.get(2).note().contains(
                "3 records passed over"), steps.get(2).note());
        assertTrue(steps.get(3).record() instanceof JournalRecord.Entered, "the next life");
    }

    /** A sealed journal's damaged last life leaves no fold: what it held was written by a life that did not end well. */
    @Test
    void aSealedReplayDropsTheFoldOfADamagedLife() throws Exception {
        life(Optional.of(KEY), 1, 5);
        damage(true, 1, 3);
        List<Replay.Step> steps = new ArrayList<>();
        Replay.Summary s = Replay.stream(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, -1, steps::add);
        assertEquals(4, s.records());
        assertTrue(steps.get(3).note().startsWith("damaged: record 3"), steps.get(3).note());
        assertTrue(s.state().isEmpty(), "no fold after the damage");
    }

    /** A sealed replay stopped after the damage counts the damage as one step, like the plain one. */
    @Test
    void aSealedReplayStoppedPastADamageCountsItAsOneStep() throws Exception {
        life(Optional.of(KEY), 1, 5);
        life(Optional.of(KEY), 2, 5);
        damage(true, 1, 2);
        List<Replay.Step> t = Replay.run(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, 4).timeline();
        assertEquals(5, t.size(), t.toString());
        assertNull(t.get(2).record());
        assertTrue(t.get(3).record() instanceof JournalRecord.Entered);
        assertEquals(new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "", "2.1"), t.get(4).record());
    }

    private void raw(byte[]... excerpts) {
        try (ChronicleQueue q = ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).build();
                ExcerptAppender a = q.createAppender()) {
            for (byte[] e : excerpts) {
                try (DocumentContext dc = a.writingDocument()) {
                    dc.wire().write("r").bytes(e);
                }
            }
        }
    }

    private static byte[] excerpt(long segment, long counter, byte[] body) {
        return ByteBuffer.allocate(17 + body.length).put((byte) 0).putLong(segment).putLong(counter).put(body).array();
    }

    /** An excerpt shorter than a header is not a record; a header with no body is a record that does not parse. */
    @Test
    void aHeaderWithNoBodyIsAMalformedRecordAndLessIsNoRecord() throws Exception {
        raw(excerpt(5, 0, new byte[0]));
        JournalException e = assertThrows(JournalException.class, () -> Journal.read(dir, Optional.empty(), r -> { }));
        assertEquals(JournalException.Kind.CORRUPT, e.kind());
        assertTrue(e.getMessage().startsWith("malformed record"), e.getMessage());
        Path other = dir.resolve("short");
        try (ChronicleQueue q = ChronicleQueue.singleBuilder(other.toFile()).rollCycle(Journal.CYCLE).build();
                ExcerptAppender a = q.createAppender();
                DocumentContext dc = a.writingDocument()) {
            dc.wire().write("r").bytes(new byte[16]);
        }
        JournalException shorter = assertThrows(JournalException.class, () -> Journal.read(other, Optional.empty(),
                r -> { }));
        assertEquals("excerpt 0 is not a record", shorter.getMessage());
    }

    /** A header alone with counter 0 starts a life: the read after a damaged life stops there, and it is damaged too. */
    @Test
    void aBareHeaderStartsTheNextLifeAfterADamagedOne() throws Exception {
        life(Optional.empty(), 1, 3);
        damage(false, 1, 1);
        byte[] body = RecordCodec.encode(new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "", "x"));
        raw(excerpt(9, 0, new byte[0]), excerpt(9, 1, body));
        JournalException e = assertThrows(JournalException.class, () -> Journal.read(dir, Optional.empty(), r -> { },
                Optional.of(d -> { })));
        assertEquals(JournalException.Kind.DAMAGED, e.kind());
        assertTrue(e.getMessage().startsWith("record 3, the first of the life after a damaged one"), e.getMessage());
    }
}
