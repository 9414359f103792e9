package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.gossip.set.NetworkId;
import sush.pipeline.Rack;
import sush.projections.fixtures.Signers;
import sush.projections.fold.SledProjection;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;

class JournalTest {
    private static final byte[] KEY = new byte[32];
    private static final byte[] OTHER_KEY = new byte[32];

    static {
        for (int i = 0; i < 32; i++) {
            KEY[i] = (byte) i;
            OTHER_KEY[i] = (byte) (i + 1);
        }
    }

    @TempDir
    Path dir;

    private static List<JournalRecord> sample() {
        Rack.Stream s = new Rack.Stream(3);
        s.add(Rack.start(1));
        List<JournalRecord> out = new ArrayList<>();
        out.add(new JournalRecord.Entered(1, NetworkId.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}),
                "START"));
        s.deliveries.forEach(d -> out.add(new JournalRecord.Delivered(d.version(), d.payload())));
        out.add(new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "", "no trustworthy history"));
        SessionId session = Rack.session(1);
        out.add(new JournalRecord.Resumed(session, sush.projections.id.Chain.first(session),
                sush.projections.id.Chain.afterBurn(sush.projections.id.Chain.first(session))));
        out.add(new JournalRecord.Passed(sush.projections.id.Chain.first(session), sush.projections.fold.ChainProjection.Passed.RAN));
        out.add(new JournalRecord.Passed(sush.projections.id.Chain.first(session), sush.projections.fold.ChainProjection.Passed.NEVER_RAN));
        out.add(new JournalRecord.Passed(sush.projections.id.Chain.first(session), sush.projections.fold.ChainProjection.Passed.MAY_HAVE_RUN));
        return out;
    }

    private List<JournalRecord> roundTrip(Optional<byte[]> writeKey, Optional<byte[]> readKey) throws Exception {
        try (Journal j = Journal.open(dir, writeKey, Entropy.seeded(1))) {
            sample().forEach(j::append);
        }
        List<JournalRecord> read = new ArrayList<>();
        Journal.read(dir, readKey, read::add);
        return read;
    }

    /**
     * Issue 35: on a disk short of space the journal writes nothing (a write into a full disk's
     * mapping faults the JVM), counts what it did not write, and says so in the record it writes
     * once space returns; the sealed segment reads on without a gap or a torn record.
     */
    @Test
    void aDiskShortOfSpaceLeavesANoteOfTheRecordsNotJournaledAndNoTornRecord() throws Exception {
        long[] free = {10L << 20};
        sush.pipeline.disk.DiskReserve disk = new sush.pipeline.disk.DiskReserve(() -> free[0], 1L << 20, "test disk");
        List<JournalRecord> in = sample();
        try (Journal j = Journal.open(dir, Optional.of(KEY), Entropy.seeded(9), Journal.DEFAULT_MAX_BYTES, disk)) {
            assertTrue(j.append(in.get(0)));
            free[0] = 600L << 10; // above the reserve's lower half, but not by a record and its margin
            assertFalse(j.append(in.get(1)));
            assertFalse(j.append(in.get(2)));
            assertEquals(2, j.unjournaled());
            free[0] = 10L << 20;
            assertTrue(j.append(in.get(3)));
            assertEquals(2, j.unjournaled());
        }
        List<JournalRecord> read = new ArrayList<>();
        Journal.read(dir, Optional.of(KEY), read::add);
        assertEquals(3, read.size(), read.toString());
        assertEquals(in.get(0), read.get(0));
        JournalRecord.Decision note = (JournalRecord.Decision) read.get(1);
        assertEquals(JournalRecord.Decision.Kind.ERROR, note.kind());
        assertTrue(note.detail().startsWith("2 records were not journaled") && note.detail().contains("no-space"),
                note.detail());
        assertEquals(in.get(3), read.get(2));
    }

    @Test
    void plainRecordsRoundTrip() throws Exception {
        assertEquals(sample(), roundTrip(Optional.empty(), Optional.empty()));
    }

    @Test
    void encryptedRecordsRoundTripAndHideTheirContent() throws Exception {
        assertEquals(sample(), roundTrip(Optional.of(KEY), Optional.of(KEY)));
        byte[] needle = "operator".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (var files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                byte[] b = Files.readAllBytes(f);
                assertFalse(JournalLifecycleTest.indexOf(b, needle) >= 0, "plain text in " + f);
            }
        }
    }

    @Test
    void aWrongKeyIsAClearError() throws Exception {
        JournalException e = assertThrows(JournalException.class, () -> roundTrip(Optional.of(KEY), Optional.of(OTHER_KEY)));
        assertEquals(JournalException.Kind.WRONG_KEY, e.kind());
        assertTrue(e.getMessage().contains("wrong journal key"), e.getMessage());
    }

    @Test
    void aMissingKeyOrAnUnneededOneIsAClearError() throws Exception {
        JournalException e = assertThrows(JournalException.class, () -> roundTrip(Optional.of(KEY), Optional.empty()));
        assertEquals(JournalException.Kind.KEY_MISMATCH, e.kind());
    }

    @Test
    void keyFilesAreRawOrHex() throws Exception {
        Path raw = dir.resolve("raw.key");
        Files.write(raw, KEY);
        assertEquals(java.util.HexFormat.of().formatHex(KEY), java.util.HexFormat.of().formatHex(Journal.readKey(raw)));
        Path hex = dir.resolve("hex.key");
        Files.writeString(hex, java.util.HexFormat.of().formatHex(KEY) + "\n");
        assertEquals(java.util.HexFormat.of().formatHex(KEY), java.util.HexFormat.of().formatHex(Journal.readKey(hex)));
        Path bad = dir.resolve("bad.key");
        Files.writeString(bad, "short");
        assertEquals(JournalException.Kind.BAD_KEY,
                assertThrows(JournalException.class, () -> Journal.readKey(bad)).kind());
    }

    @Test
    void replayingAJournalReproducesTheLiveStateAtEveryStep() throws Exception {
        SessionId s = Rack.session(2);
        List<SignedJob> jobs = Rack.jobs(s, 4, "echo", "*");
        Rack.Stream stream = new Rack.Stream(4);
        stream.add(new Message.Announcement(Rack.ME.baseboard(), "0.1.0", 0)).add(Rack.start(2));
        jobs.forEach(j -> stream.add(new Message.JobStart(j)));
        stream.add(new Message.JobStarted(Rack.ME.baseboard(), jobs.get(0).request().job()));
        // The live sled: the fold, the head passed after each start, everything journaled.
        SledProjection live = new SledProjection(Rack.ME, Signers.TRUST);
        List<String> liveDigests = new ArrayList<>();
        try (Journal j = Journal.open(dir, Optional.of(KEY), Entropy.seeded(2))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            liveDigests.add(live.digest());
            for (Rack.Delivery d : stream.deliveries) {
                j.append(new JournalRecord.Delivered(d.version(), d.payload()));
                for (SledProjection.Outcome o : live.apply(d.version(), d.payload())) {
                    liveDigests.add(live.digest());
                    if (o instanceof SledProjection.Outcome.AtHead) {
                        var job = ((SledProjection.Outcome.AtHead) o).job().request().job();
                        j.append(new JournalRecord.Passed(job, sush.projections.fold.ChainProjection.Passed.RAN));
                        live.passHead(job, sush.projections.fold.ChainProjection.Passed.RAN);
                    }
                }
                liveDigests.add(live.digest());
            }
        }
        Replay.Result all = Replay.run(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, -1);
        assertEquals(live.digest(), all.state().orElseThrow().digest());
        assertTrue(live.chain().orElseThrow().head().equals(all.state().orElseThrow().chain().orElseThrow().head()));
        Replay.Result two = Replay.run(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, 2);
        assertEquals(3, two.timeline().size());
        assertTrue(liveDigests.contains(two.state().orElseThrow().digest()), "a prefix is a state the live sled had");
    }

    /**
     * A job request's delivery keeps the verdict the sled acted on; a delivery without one keeps
     * its old bytes (tag 2), so journals written before verdicts were kept read as before.
     */
    @Test
    void signatureVerdictsRoundTripAndADeliveryWithoutOneKeepsItsBytes() throws Exception {
        Rack.Delivery d = new Rack.Stream(2).add(Rack.start(1)).deliveries.get(0);
        for (JournalRecord.Signature verdict : JournalRecord.Signature.values()) {
            JournalRecord.Delivered r = new JournalRecord.Delivered(d.version(), d.payload(), verdict);
            assertEquals(r, RecordCodec.decode(RecordCodec.encode(r)));
        }
        byte[] unchecked = RecordCodec.encode(new JournalRecord.Delivered(d.version(), d.payload()));
        assertEquals(2, unchecked[0], "tag 2, as before verdicts were kept");
        byte[] good = RecordCodec.encode(new JournalRecord.Delivered(d.version(), d.payload(),
                JournalRecord.Signature.GOOD));
        assertEquals(6, good[0]);
        byte[] noVerdict = good.clone();
        noVerdict[noVerdict.length - 1] = 0; // tag 6 claiming "unchecked"
        assertEquals(JournalException.Kind.CORRUPT,
                assertThrows(JournalException.class, () -> RecordCodec.decode(noVerdict)).kind());
        byte[] outOfRange = good.clone();
        outOfRange[outOfRange.length - 1] = 9;
        assertEquals(JournalException.Kind.CORRUPT,
                assertThrows(JournalException.class, () -> RecordCodec.decode(outOfRange)).kind());
    }

    /**
     * Replay takes the recorded verdicts: a journal replays to the live state with no keys at all
     * (or after the keys changed). Without recorded verdicts the given keys decide, and with none
     * the jobs are refused: the difference shows which one the replay used.
     */
    @Test
    void replayUsesTheRecordedVerdictsAndTheKeysOnlyWhereNoneWasRecorded() throws Exception {
        SessionId s = Rack.session(3);
        List<SignedJob> jobs = Rack.jobs(s, 3, "echo", "*");
        SignedJob last = Rack.jobs(s, 4, "echo", "*").get(3);
        byte[] bad = last.signature();
        bad[0] ^= 1;
        SignedJob forged = new SignedJob(last.request(), last.key(), last.algorithm(), bad);
        Rack.Stream stream = new Rack.Stream(4);
        stream.add(Rack.start(3));
        jobs.forEach(j -> stream.add(new Message.JobStart(j)));
        stream.add(new Message.JobStart(forged));
        SledProjection live = new SledProjection(Rack.ME, Signers.TRUST);
        List<SledProjection.Outcome> liveOutcomes = new ArrayList<>();
        Path recorded = dir.resolve("recorded");
        Path older = dir.resolve("older");
        try (Journal withVerdicts = Journal.open(recorded, Optional.empty(), Entropy.seeded(2));
                Journal without = Journal.open(older, Optional.empty(), Entropy.seeded(3))) {
            for (Journal j : List.of(withVerdicts, without)) {
                j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            }
            for (Rack.Delivery d : stream.deliveries) {
                Message m = sush.projections.message.MessageCodec.decode(d.payload());
                JournalRecord.Signature verdict = JournalRecord.Signature.UNCHECKED;
                if (m instanceof Message.JobStart) {
                    verdict = Signers.TRUST.signature(((Message.JobStart) m).job()).isEmpty()
                            ? JournalRecord.Signature.GOOD : JournalRecord.Signature.BAD_SIGNATURE;
                }
                withVerdicts.append(new JournalRecord.Delivered(d.version(), d.payload(), verdict));
                without.append(new JournalRecord.Delivered(d.version(), d.payload()));
                liveOutcomes.addAll(live.apply(d.version(), d.payload()));
            }
        }
        assertTrue(liveOutcomes.stream().anyMatch(o -> o instanceof SledProjection.Outcome.InvalidJob), "the forged job");
        TrustStore noKeys = Signers.trust();
        List<String> notes = new ArrayList<>();
        Replay.Summary replayed = Replay.stream(recorded, Optional.empty(), Rack.ME, noKeys, -1, step -> notes.add(step.note()));
        assertEquals(live.digest(), replayed.state().orElseThrow().digest());
        assertEquals(live.chain().orElseThrow().head(), replayed.state().orElseThrow().chain().orElseThrow().head());
        assertTrue(notes.stream().anyMatch(n -> n.contains("BAD_SIGNATURE")), "the recorded refusal, with its reason");
        assertTrue(notes.stream().anyMatch(n -> n.contains("AtHead")), "the good jobs take their positions");
        assertFalse(notes.stream().anyMatch(n -> n.contains("UNKNOWN_KEY")), "no key was needed");
        assertEquals(live.digest(), Replay.run(older, Optional.empty(), Rack.ME, Signers.TRUST, -1).state()
                .orElseThrow().digest(), "no verdicts recorded: the keys decide, as they did live");
        List<String> unkeyed = new ArrayList<>();
        Replay.stream(older, Optional.empty(), Rack.ME, noKeys, -1, step -> unkeyed.add(step.note()));
        assertTrue(unkeyed.stream().anyMatch(n -> n.contains("UNKNOWN_KEY")), "and without keys the jobs are refused");
        assertFalse(unkeyed.stream().anyMatch(n -> n.contains("AtHead")));
    }

    /**
     * Replay streams, plain (folded as read) and sealed (read ahead on a thread, a journal longer
     * than the reader's batches): in order, stopped where asked, in full, and stopped by its
     * consumer; a wrong key is the reader's error, thrown to the caller.
     */
    @Test
    void aStreamedReplayStopsWhereAskedAndSeesEveryRecordOtherwise() throws Exception {
        Rack.Stream stream = new Rack.Stream(3);
        // More than the reader may hold ahead: it waits on the fold (which starts slowly).
        for (int i = 0; i < Replay.BATCH * (Replay.BATCHES_AHEAD + 1) + 7; i++) {
            stream.add(new Message.Announcement("913-0000019:SLED" + (i % 40), "0.1." + i, i % 32));
        }
        for (Optional<byte[]> key : List.of(Optional.<byte[]>empty(), Optional.of(KEY))) {
            Path journal = dir.resolve(key.isPresent() ? "sealed" : "plain");
            try (Journal j = Journal.open(journal, key, Entropy.seeded(4))) {
                j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
                stream.deliveries.forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
            }
            long[] seen = {0};
            long total = stream.deliveries.size() + 1;
            assertEquals(total, Replay.stream(journal, key, Rack.ME, Signers.TRUST, -1, step -> {
                if (step.index() == 0) {
                    pause();
                }
                assertEquals(seen[0]++, step.index(), "in order");
            }).records());
            assertEquals(total, seen[0]);
            assertEquals(Replay.BATCH + 1, Replay.stream(journal, key, Rack.ME, Signers.TRUST, Replay.BATCH,
                    step -> { }).records());
            RuntimeException stop = new IllegalStateException("the caller gives up");
            assertEquals(stop, assertThrows(IllegalStateException.class,
                    () -> Replay.stream(journal, key, Rack.ME, Signers.TRUST, -1, step -> {
                        if (step.index() == 700) {
                            throw stop;
                        }
                    })));
        }
        assertEquals(JournalException.Kind.WRONG_KEY, assertThrows(JournalException.class,
                () -> Replay.stream(dir.resolve("sealed"), Optional.of(OTHER_KEY), Rack.ME, Signers.TRUST, -1,
                        step -> { })).kind());
        assertEquals(JournalException.Kind.KEY_MISMATCH, assertThrows(JournalException.class,
                () -> Replay.stream(dir.resolve("sealed"), Optional.empty(), Rack.ME, Signers.TRUST, -1, step -> { }))
                .kind());
    }

    /**
     * A sealed record damaged on disk (torn, or altered) after records that read with the same key
     * is said as damaged, never blamed on the key (issue 35); the replay passes over the rest of
     * that life and goes on into the next one. Reading without replay's damage handling fails
     * with {@code DAMAGED} there, after every record before it.
     */
    @Test
    void aDamagedSealedRecordIsSaidSoAndTheReplayGoesOnIntoTheNextLife() throws Exception {
        Rack.Stream stream = new Rack.Stream(3);
        for (int i = 0; i < Replay.BATCH + 100; i++) {
            stream.add(new Message.Announcement("913-0000019:SLED" + (i % 40), "0.1." + i, i % 32));
        }
        try (Journal j = Journal.open(dir, Optional.of(KEY), Entropy.seeded(6))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            stream.deliveries.forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
        }
        // The sled's next life appends its own segment.
        try (Journal j = Journal.open(dir, Optional.of(KEY), Entropy.seeded(7))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            stream.deliveries.subList(0, 10).forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
        }
        long bad = Replay.BATCH + 50;
        byte[] count = java.nio.ByteBuffer.allocate(Long.BYTES).putLong(bad).array();
        Path file;
        try (var files = Files.walk(dir)) {
            file = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(file);
        int at = JournalLifecycleTest.indexOf(bytes, count);
        while (at >= 0 && bytes[at - Long.BYTES - 1] != 1) { // the record header: sealed, segment, count
            int next = JournalLifecycleTest.indexOf(java.util.Arrays.copyOfRange(bytes, at + 1, bytes.length), count);
            at = next < 0 ? -1 : at + 1 + next;
        }
        assertTrue(at > 0, "record " + bad + " found");
        bytes[at + Long.BYTES + 12 + 3] ^= 1; // inside its ciphertext, past the nonce
        Files.write(file, bytes);
        List<Replay.Step> steps = new ArrayList<>();
        Replay.stream(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, -1, steps::add);
        long lifeOne = stream.deliveries.size() + 1;
        assertEquals(bad, steps.stream().takeWhile(s -> s.record() != null).count(), "every record before it");
        Replay.Step damaged = steps.get((int) bad);
        assertTrue(damaged.note().startsWith("damaged: record " + bad) && damaged.note().contains((lifeOne - bad)
                + " records passed over"), damaged.note());
        assertEquals(11, steps.size() - bad - 1, "the next life, read whole");
        assertTrue(steps.get(steps.size() - 11).record() instanceof JournalRecord.Entered);
        long[] seen = {0};
        JournalException e = assertThrows(JournalException.class, () -> Journal.read(dir, Optional.of(KEY),
                r -> seen[0]++));
        assertEquals(JournalException.Kind.DAMAGED, e.kind(), e.getMessage());
        assertEquals(bad, seen[0]);
        // A wrong key fails at the first record: the key is blamed only when nothing read.
        JournalException wrong = assertThrows(JournalException.class, () -> Journal.read(dir, Optional.of(
                new byte[32]), r -> { }));
        assertEquals(JournalException.Kind.WRONG_KEY, wrong.kind());
    }

    /** A recorded verdict outranks the keys; past the bound the oldest are forgotten and the keys decide. */
    @Test
    void recordedVerdictsOutrankTheKeysUpToTheirBound() {
        List<SignedJob> jobs = Rack.jobs(Rack.session(4), 5, "echo", "*");
        Replay.Recorded recorded = new Replay.Recorded(Signers.TRUST, 3);
        for (SignedJob j : jobs) {
            assertEquals(Optional.empty(), recorded.signature(j), "nothing recorded: the keys decide");
            recorded.record(j, JournalRecord.Signature.BAD_SIGNATURE); // what this journal says the sled saw
        }
        for (int i = 0; i < jobs.size(); i++) {
            assertEquals(i < 2 ? Optional.empty() : Optional.of(sush.projections.job.InvalidJobReason.BAD_SIGNATURE),
                    recorded.signature(jobs.get(i)), "job " + i);
        }
        recorded.record(jobs.get(0), JournalRecord.Signature.UNCHECKED);
        assertEquals(Optional.empty(), recorded.signature(jobs.get(0)), "no verdict recorded: nothing kept");
    }

    private static void pause() {
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Issue 35: a signed rack's journal is folded as signed (as causal it saw no session at all,
     * every job "inconsistent"): the first session message says which, or {@code --ordering}.
     */
    @Test
    void aSignedRacksJournalIsFoldedAsSigned() throws Exception {
        sush.projections.job.SignedGrant g = Rack.grant(1_700_000_000_000L, 1);
        SessionId s = g.grant().session();
        List<SignedJob> jobs = Rack.jobs(s, 2, "r", "*");
        Rack.Stream stream = new Rack.Stream(2);
        stream.add(new Message.SessionGrant(g));
        jobs.forEach(j -> stream.add(new Message.JobStart(j)));
        Path journal = dir.resolve("signed");
        try (Journal j = Journal.open(journal, Optional.empty(), Entropy.seeded(7))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            for (Rack.Delivery d : stream.deliveries) {
                j.append(new JournalRecord.Delivered(d.version(), d.payload()));
            }
        }
        assertEquals(sush.projections.fold.Ordering.SIGNED, Replay.orderingOf(journal, Optional.empty()));
        SledProjection folded = Replay.run(journal, Optional.empty(), Rack.ME, Signers.TRUST, -1).state().orElseThrow();
        assertEquals(s, folded.activeSession().orElseThrow().id(), folded.digest());
        assertTrue(folded.digest().contains("ordering=signed"), folded.digest());
        // Folded as causal, as it was before: no session is active.
        List<String> notes = new ArrayList<>();
        SledProjection causal = Replay.stream(journal, Optional.empty(), Rack.ME, Signers.TRUST, -1,
                sush.projections.fold.Ordering.CAUSAL, step -> notes.add(step.note())).state().orElseThrow();
        assertTrue(causal.activeSession().isEmpty());
    }
}
