package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.gossip.set.NetworkId;
import sush.pipeline.Rack;
import sush.projections.fixtures.Signers;
import sush.projections.fold.ChainProjection;
import sush.projections.id.Chain;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * What an engineer reads when replaying a journal: a note per record saying what the fold did
 * with it, records up to and including the one asked for, clear errors naming the record, and
 * no reader thread left behind.
 */
class ReplayTimelineTest {
    private static final byte[] KEY = new byte[32];

    static {
        KEY[0] = 42;
    }

    @TempDir
    Path dir;

    private static List<Replay.Step> replay(Path journal, long until) throws Exception {
        return Replay.run(journal, Optional.empty(), Rack.ME, Signers.TRUST, until).timeline();
    }

    @Test
    void everyRecordGetsANoteSayingWhatTheFoldDidWithIt() throws Exception {
        SessionId s = Rack.session(1);
        List<SignedJob> jobs = Rack.jobs(s, 2, "n", "*");
        Rack.Stream stream = new Rack.Stream(2);
        stream.add(Rack.start(1)).add(new Message.JobStart(jobs.get(0))).add(new Message.JobStart(jobs.get(1)))
                .add(new Message.SessionStop(s, "operator"));
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(1))) {
            Rack.Delivery first = stream.deliveries.get(0);
            j.append(new JournalRecord.Delivered(first.version(), first.payload())); // 0: before any entry
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START")); // 1
            stream.deliveries.subList(0, 3).forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
            j.append(new JournalRecord.Passed(Chain.afterBurn(Chain.first(s)), ChainProjection.Passed.RAN)); // 5
            j.append(new JournalRecord.Passed(Chain.first(s), ChainProjection.Passed.RAN)); // 6
            j.append(new JournalRecord.Resumed(s, Chain.first(s), jobs.get(0).request().successor())); // 7
            Rack.Delivery stop = stream.deliveries.get(3);
            j.append(new JournalRecord.Delivered(stop.version(), stop.payload())); // 8
            j.append(new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "", "x")); // 9
        }
        List<Replay.Step> t = replay(dir, -1);
        assertEquals("before any entry: ignored", t.get(0).note());
        assertEquals("entry: a fresh fold", t.get(1).note());
        assertEquals("[]", t.get(2).note(), "a session start: no outcome");
        assertEquals("[AtHead(" + jobs.get(0).request().job() + ")]", t.get(3).note());
        assertEquals("[]", t.get(4).note(), "queued behind the head");
        assertTrue(t.get(5).note().startsWith("inconsistent: "), t.get(5).note());
        assertEquals("[AtHead(" + jobs.get(1).request().job() + ")]", t.get(6).note());
        assertEquals("resumed", t.get(7).note());
        assertTrue(t.get(8).note().startsWith("[SessionEnded(" + s + ", ")
                && t.get(8).note().endsWith(", 1 queued here)]"), t.get(8).note());
        assertEquals("", t.get(9).note(), "a decision changes no fold");
        assertEquals(10, t.size());
    }

    @Test
    void aResumptionAtTheEntryPutsTheReplayedHeadAfterTheCommittedJob() throws Exception {
        SessionId s = Rack.session(3);
        List<SignedJob> jobs = Rack.jobs(s, 2, "r", "*");
        Rack.Stream stream = new Rack.Stream(2);
        stream.add(Rack.start(3)).add(new Message.JobStart(jobs.get(0))).add(new Message.JobStart(jobs.get(1)));
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(7))) {
            j.append(new JournalRecord.Resumed(s, jobs.get(0).request().job(), jobs.get(0).request().successor()));
            j.append(new JournalRecord.Entered(2, NetworkId.BOOTSTRAPPING, "START"));
            j.append(new JournalRecord.Resumed(s, jobs.get(0).request().job(), jobs.get(0).request().successor()));
            stream.deliveries.forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
        }
        List<Replay.Step> t = replay(dir, -1);
        assertEquals("before any entry: ignored", t.get(0).note(), "a resumption needs an entry's fold");
        assertEquals("resumed", t.get(2).note());
        assertEquals("[]", t.get(4).note(), "j0 ran in an earlier life: never at the head again");
        assertEquals("[AtHead(" + jobs.get(1).request().job() + ")]", t.get(5).note());
    }

    @Test
    void aSessionsSeveralOutcomesAreListedInOneNote() throws Exception {
        SessionId s = Rack.session(2);
        List<SignedJob> jobs = Rack.jobs(s, 2, "c", "*", true);
        Rack.Stream stream = new Rack.Stream(2);
        stream.add(Rack.start(2)).add(new Message.JobStart(jobs.get(1))).add(new Message.JobStart(jobs.get(0)));
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(2))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            stream.deliveries.forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
            j.append(new JournalRecord.Passed(jobs.get(0).request().job(), ChainProjection.Passed.RAN));
        }
        List<Replay.Step> t = replay(dir, -1);
        assertEquals("[AtHead(" + jobs.get(0).request().job() + ")]", t.get(3).note());
        assertEquals("[AtHead(" + jobs.get(1).request().job() + ")]", t.get(4).note());
    }

    @Test
    void aReplayUntilRecordZeroReadsExactlyOneRecordPlainOrSealed() throws Exception {
        for (Optional<byte[]> key : List.of(Optional.<byte[]>empty(), Optional.of(KEY))) {
            Path journal = dir.resolve(key.isPresent() ? "sealed" : "plain");
            try (Journal j = Journal.open(journal, key, Entropy.seeded(3))) {
                for (int i = 0; i < 5; i++) {
                    j.append(new JournalRecord.Entered(i, NetworkId.BOOTSTRAPPING, "START"));
                }
            }
            assertEquals(1, Replay.stream(journal, key, Rack.ME, Signers.TRUST, 0, step -> { }).records());
            assertEquals(3, Replay.stream(journal, key, Rack.ME, Signers.TRUST, 2, step -> { }).records());
            assertEquals(5, Replay.stream(journal, key, Rack.ME, Signers.TRUST, 99, step -> { }).records());
        }
    }

    @Test
    void aFoldThatGivesUpLeavesNoReaderThreadBehind() throws Exception {
        Rack.Stream stream = new Rack.Stream(2);
        for (int i = 0; i < Replay.BATCH * (Replay.BATCHES_AHEAD + 2); i++) {
            stream.add(new Message.Announcement("913-0000019:SLED" + (i % 40), "0.1." + i, i % 32));
        }
        try (Journal j = Journal.open(dir, Optional.of(KEY), Entropy.seeded(4))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            stream.deliveries.forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
        }
        RuntimeException stop = new IllegalStateException("enough");
        assertEquals(stop, assertThrows(IllegalStateException.class,
                () -> Replay.stream(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, -1, step -> {
                    throw stop;
                })));
        assertFalse(Thread.getAllStackTraces().keySet().stream()
                .anyMatch(th -> th.getName().equals("sush-replay-reader") && th.isAlive()),
                "the reader has ended when the replay returns");
    }

    @Test
    void errorsNameTheRecordAndWhichKeyIsMissing() throws Exception {
        Path sealed = dir.resolve("sealed");
        try (Journal j = Journal.open(sealed, Optional.of(KEY), Entropy.seeded(5))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
        }
        JournalException noKey = assertThrows(JournalException.class, () -> Journal.read(sealed, Optional.empty(), r -> { }));
        assertEquals(JournalException.Kind.KEY_MISMATCH, noKey.kind());
        assertTrue(noKey.getMessage().contains("the journal is encrypted: give its key"), noKey.getMessage());
        Path plain = dir.resolve("plain");
        try (Journal j = Journal.open(plain, Optional.empty(), Entropy.seeded(6))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
        }
        JournalException extra = assertThrows(JournalException.class, () -> Journal.read(plain, Optional.of(KEY), r -> { }));
        assertEquals(JournalException.Kind.KEY_MISMATCH, extra.kind());
        assertTrue(extra.getMessage().contains("the journal is not encrypted: give no key"), extra.getMessage());
        // Read without a key, a journal whose third opening sealed its records fails there.
        Path mixed = dir.resolve("mixed");
        for (int opening = 0; opening < 3; opening++) {
            try (Journal j = Journal.open(mixed, opening == 2 ? Optional.of(KEY) : Optional.empty(),
                    Entropy.seeded(10 + opening))) {
                j.append(new JournalRecord.Entered(opening, NetworkId.BOOTSTRAPPING, "START"));
                j.append(new JournalRecord.Entered(opening, NetworkId.BOOTSTRAPPING, "MIGRATION"));
            }
        }
        JournalException mixedError = assertThrows(JournalException.class, () -> Journal.read(mixed, Optional.empty(),
                r -> { }));
        assertTrue(mixedError.getMessage().contains("encrypted"), mixedError.getMessage());
    }

    @Test
    void aVerdictPastTheLastIsCorruptNotACrash() throws Exception {
        Rack.Stream stream = new Rack.Stream(1);
        stream.add(Rack.start(1));
        byte[] bytes = RecordCodec.encode(new JournalRecord.Delivered(stream.deliveries.get(0).version(),
                stream.deliveries.get(0).payload(), JournalRecord.Signature.GOOD));
        for (int verdict = JournalRecord.Signature.values().length; verdict < 6; verdict++) {
            bytes[bytes.length - 1] = (byte) verdict;
            assertThrows(JournalException.class, () -> RecordCodec.decode(bytes), "verdict " + verdict);
        }
    }
}
