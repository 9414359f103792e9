package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Command lines and their exit codes: helpful one-line errors a script can test. */
class CliTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true));
        System.setErr(new PrintStream(e, true));
        try {
            return new Run(Main.run(args), o.toString(), e.toString());
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void anUnreachableSledIsExitThreeWithAHint() {
        Run r = run("session", "status", "--url", "http://127.0.0.1:1");
        assertEquals(3, r.exit());
        assertTrue(r.err().contains("sled unreachable") && r.err().contains("SUSH_URL"), r.err());
        Run j = run("session", "status", "--url", "http://127.0.0.1:1", "--json");
        assertTrue(j.out().contains("\"error\":\"unreachable\""), j.out());
    }

    @Test
    void daemonFlagErrorsAreOneLine() throws Exception {
        Run missing = run("daemon", "--baseboard", "913:X");
        assertEquals(2, missing.exit());
        assertEquals(1, missing.err().strip().lines().count(), missing.err());
        Run rack = run("daemon", "--rack", dir.resolve("nope.json").toString(), "--sled", "x");
        assertEquals(2, rack.exit());
        assertTrue(rack.err().contains("cannot read rack file"), rack.err());
        Files.writeString(dir.resolve("bad.json"), "{not json");
        assertTrue(run("daemon", "--rack", dir.resolve("bad.json").toString(), "--sled", "x").err().contains("not JSON"));
    }

    @Test
    void unusableSlotsAndAPortInUseStopTheDaemonWithAReason() throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path trust = dir.resolve("keys");
        assertEquals(0, run("keygen", "--out", trust.toString()).exit());
        // (A missing slot directory is not fatal: the daemon runs untrusted and refuses every job.)
        Run one = run("daemon", "--baseboard", "913:X", "--gossip", "127.0.0.1:0", "--m2", a.toString(),
                "--output", dir.resolve("out").toString(), "--trust", trust.resolve("signer.pub").toString());
        assertEquals(1, one.exit(), one.err());
        assertTrue(one.err().contains("exactly two slot directories"), one.err());
        try (ServerSocket taken = new ServerSocket(0)) {
            Path b = Files.createDirectories(dir.resolve("b"));
            Run port = run("daemon", "--baseboard", "913:X", "--gossip", "127.0.0.1:" + taken.getLocalPort(), "--m2",
                    a + "," + b, "--output", dir.resolve("out").toString(), "--trust",
                    trust.resolve("signer.pub").toString(), "--api", "127.0.0.1:0");
            assertEquals(1, port.exit(), port.err());
            assertTrue(port.err().contains("cannot listen for gossip"), port.err());
        }
    }

    @Test
    void provisioningRefusesSlotsHoldingARecord() throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        assertEquals(0, run("locker", "provision", "--m2", a + "," + b, "--baseboard", "913:X").exit());
        Run again = run("locker", "provision", "--m2", a + "," + b, "--baseboard", "913:X");
        assertEquals(1, again.exit());
        assertTrue(again.err().contains("not empty"), again.err());
    }
}
