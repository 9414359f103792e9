package sush.ops;

import sush.ops.wire.Version;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.set.NetworkId;
import sush.ops.cli.Invocation;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.Chain;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/** Command lines and their exit codes: helpful one-line errors a script can test. */
class CliTest {
    @TempDir
    Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    /**
     * {@code sush replay} streams a journal's timeline and its final state; the signature verdicts
     * the sled recorded stand without any key, and a journal read with a key it does not need is
     * refused with a clear error.
     */
    @Test
    void replayPrintsTheTimelineWithTheRecordedVerdictsAndNoKeys() throws Exception {
        String board = "913-0000019:SLED00";
        Path journal = dir.resolve("journal");
        SessionId session = writeJournal(journal, board, Optional.empty());
        CliRun r = run("replay", journal.toString(), "--baseboard", board);
        assertEquals(0, r.exit(), r.err());
        java.util.List<String> all = r.out().lines().toList();
        assertTrue(all.get(0).startsWith("ordering: causal"), "the journal's session start says causal: " + r.out());
        java.util.List<String> lines = all.subList(1, all.size());
        assertEquals(4, lines.size(), r.out());
        assertTrue(lines.get(0).startsWith("0  Entered"), r.out());
        assertTrue(lines.get(2).startsWith("2  Delivered") && lines.get(2).contains("signature GOOD")
                && lines.get(2).contains("AtHead"), r.out());
        assertTrue(lines.get(3).startsWith("state: ") && lines.get(3).contains("active=" + session.codephrase()), r.out());
        Path keyFile = dir.resolve("journal.key");
        Files.writeString(keyFile, "00".repeat(32));
        CliRun keyed = run("replay", journal.toString(), "--journal-key", keyFile.toString());
        assertEquals(2, keyed.exit());
        assertTrue(keyed.err().contains("not encrypted"), keyed.err());
    }

    /**
     * Issue 41: replay's journal key is {@code --journal-key} (the daemon's flag for the same
     * file), which reads a sealed journal; the old {@code --key}, which means the signer key
     * everywhere else, still works for one release with a one-line warning, also given before
     * the subcommand, and refuses to be given with {@code --journal-key}.
     */
    @Test
    void replayReadsASealedJournalWithJournalKeyAndTheOldKeyWithAWarning() throws Exception {
        String board = "913-0000019:SLED00";
        Path journal = dir.resolve("sealed");
        Path keyFile = dir.resolve("journal.key");
        Files.writeString(keyFile, "07".repeat(32));
        SessionId session = writeJournal(journal, board, Optional.of(Journal.readKey(keyFile)));
        String state = "active=" + session.codephrase();
        CliRun r = run("replay", journal.toString(), "--baseboard", board, "--journal-key", keyFile.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("0  Entered") && r.out().contains(state), r.out());
        assertEquals("", r.err());
        CliRun unkeyed = run("replay", journal.toString(), "--baseboard", board);
        assertEquals(2, unkeyed.exit(), "a sealed journal without its key: " + unkeyed.out());
        String[] after = {"replay", journal.toString(), "--baseboard", board, "--key", keyFile.toString()};
        String[] before = {"--key", keyFile.toString(), "replay", journal.toString(), "--baseboard", board};
        for (String[] old : new String[][] {after, before}) {
            CliRun o = run(old);
            assertEquals(0, o.exit(), o.err());
            assertEquals(r.out(), o.out(), "the old spelling reads the same");
            assertEquals(1, o.err().lines().count(), o.err());
            assertTrue(o.err().contains("--key for replay is now --journal-key"), o.err());
        }
        CliRun both = run("replay", journal.toString(), "--key", keyFile.toString(), "--journal-key",
                keyFile.toString());
        assertEquals(2, both.exit(), both.out());
        assertTrue(both.err().contains("--journal-key"), both.err());
        assertTrue(Main.commandLine(Invocation.system()).getSubcommands().get("replay").getUsageMessage()
                .contains("--journal-key"), "help names --journal-key");
        assertFalse(Main.commandLine(Invocation.system()).getSubcommands().get("replay").getUsageMessage()
                .contains("--key="), "help no longer names --key");
    }

    /**
     * Writes a journal of one sled's three records (entering the bootstrapping universe, a session
     * start, a job of it whose signature was GOOD), sealed with {@code key} if given; the session.
     */
    private static SessionId writeJournal(Path journal, String board, Optional<byte[]> key) {
        byte[] nonce = new byte[SessionIds.NONCE_BYTES];
        SessionId session = SessionIds.compute(board, nonce, new byte[] {1});
        SignedJob job = Jobs.at(Signers.KEY, session, Chain.first(session), "uptime", "*", false);
        sush.gossip.clock.Version v = sush.gossip.clock.Version.ZERO;
        try (Journal j = Journal.open(journal, key, Entropy.seeded(1))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            v = v.tick(Id.ONE);
            j.append(new JournalRecord.Delivered(v, MessageCodec.encode(
                    new Message.SessionStart(session, board, nonce, new byte[] {1}, "operator"))));
            v = v.tick(Id.ONE);
            j.append(new JournalRecord.Delivered(v, MessageCodec.encode(new Message.JobStart(job)),
                    JournalRecord.Signature.GOOD));
        }
        return session;
    }

    @Test
    void anUnreachableSledIsExitThreeWithAHint() {
        CliRun r = run("session", "status", "--url", "http://127.0.0.1:1");
        assertEquals(3, r.exit());
        assertTrue(r.err().contains("sled unreachable") && r.err().contains("SUSH_URL"), r.err());
        CliRun j = run("session", "status", "--url", "http://127.0.0.1:1", "--json");
        assertTrue(j.out().contains("\"error\":\"unreachable\""), j.out());
    }

    @Test
    void daemonFlagErrorsAreOneLine() throws Exception {
        CliRun missing = run("daemon", "--baseboard", "913:X");
        assertEquals(2, missing.exit());
        assertEquals(1, missing.err().strip().lines().count(), missing.err());
        CliRun rack = run("daemon", "--rack", dir.resolve("nope.json").toString(), "--sled", "x");
        assertEquals(2, rack.exit());
        assertTrue(rack.err().contains("cannot read rack file"), rack.err());
        Files.writeString(dir.resolve("bad.json"), "{not json");
        assertTrue(run("daemon", "--rack", dir.resolve("bad.json").toString(), "--sled", "x").err().contains("not JSON"));
        // Forgetting is a rack's default (D-057): asked for without a rack file, or both ways, it is refused.
        CliRun alone = run("daemon", "--baseboard", "913:X", "--forgetting");
        assertEquals(2, alone.exit());
        assertTrue(alone.err().contains("--forgetting needs --rack"), alone.err());
        CliRun both = run("daemon", "--rack", dir.resolve("bad.json").toString(), "--sled", "x", "--forgetting",
                "--no-forgetting");
        assertEquals(2, both.exit());
        assertTrue(both.err().contains("one or the other"), both.err());
    }

    @Test
    void unusableSlotsAndAPortInUseStopTheDaemonWithAReason() throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path trust = dir.resolve("keys");
        assertEquals(0, run("keygen", "--out", trust.toString()).exit());
        // (A missing slot directory is not fatal: the daemon runs untrusted and refuses every job.)
        CliRun plain = run("daemon", "--baseboard", "913:X", "--gossip", "127.0.0.1:0", "--m2", a + "," + a,
                "--output", dir.resolve("out").toString(), "--trust", trust.resolve("signer.pub").toString(),
                "--operators", dir.resolve("operators").toString());
        assertEquals(2, plain.exit(), plain.err());
        assertTrue(plain.err().contains("gossip needs --rack-ca, --cert and --key"), plain.err());
        CliRun one = run("daemon", "--baseboard", "913:X", "--gossip", "127.0.0.1:0", "--m2", a.toString(),
                "--output", dir.resolve("out").toString(), "--trust", trust.resolve("signer.pub").toString(),
                "--insecure-gossip", "--operators", dir.resolve("operators").toString());
        assertEquals(1, one.exit(), one.err());
        assertTrue(one.err().contains("exactly two slot directories"), one.err());
        try (ServerSocket taken = new ServerSocket(0)) {
            Path b = Files.createDirectories(dir.resolve("b"));
            CliRun port = run("daemon", "--baseboard", "913:X", "--gossip", "127.0.0.1:" + taken.getLocalPort(), "--m2",
                    a + "," + b, "--output", dir.resolve("out").toString(), "--trust",
                    trust.resolve("signer.pub").toString(), "--api", "127.0.0.1:0", "--insecure-gossip", "--operators",
                    dir.resolve("operators").toString());
            assertEquals(1, port.exit(), port.err());
            assertTrue(port.err().contains("cannot listen for gossip"), port.err());
        }
    }

    @Test
    void provisioningRefusesSlotsHoldingARecord() throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        assertEquals(0, run("locker", "provision", "--m2", a + "," + b, "--baseboard", "913:X", "--floor-epoch", "0")
                .exit());
        CliRun again = run("locker", "provision", "--m2", a + "," + b, "--baseboard", "913:X", "--floor-epoch", "0");
        assertEquals(1, again.exit());
        assertTrue(again.err().contains("not empty"), again.err());
    }

    @Test
    void convertTurnsACausalRecordIntoASignedOneAndRefusesTwice() throws Exception {
        Path a = Files.createDirectories(dir.resolve("ca"));
        Path b = Files.createDirectories(dir.resolve("cb"));
        CliRun none = run("locker", "provision", "--m2", a + "," + b, "--baseboard", "913:X");
        assertEquals(2, none.exit(), "a signed record needs a floor: " + none.err());
        assertTrue(none.err().contains("--floor-epoch"), none.err());
        assertEquals(0, run("locker", "provision", "--ordering", "causal", "--m2", a + "," + b, "--baseboard", "913:X")
                .exit());
        CliRun converted = run("locker", "convert", "--m2", a + "," + b, "--baseboard", "913:X", "--floor-epoch", "42");
        assertEquals(0, converted.exit(), converted.err());
        assertTrue(converted.out().contains("floor epoch 42"), converted.out());
        java.util.List<sush.locker.store.Slot> slots = java.util.List.of(new sush.locker.store.DirectorySlot(a),
                new sush.locker.store.DirectorySlot(b));
        try (sush.locker.store.Locker<sush.locker.record.SignedRecord> l = sush.locker.store.Locker.open(
                sush.locker.record.RecordFormat.SIGNED, "913:X", slots, sush.gossip.Entropy.secure())) {
            assertTrue(l.trusted(), l.load().reason());
            assertEquals(42, l.newest().orElseThrow().floor());
        }
        CliRun again = run("locker", "convert", "--m2", a + "," + b, "--baseboard", "913:X", "--floor-epoch", "43");
        assertEquals(1, again.exit());
        assertTrue(again.err().contains("ordering"), "a signed record is not read as a causal one: " + again.err());
    }
}
