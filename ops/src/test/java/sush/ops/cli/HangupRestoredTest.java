package sush.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A daemon started by a launcher that ignores SIGHUP (nohup) gets SIGHUP back at its default, so
 * its JVM takes the signal and {@code sush rack peers} reloads it. Checked on a real process
 * started from a shell that ignores SIGHUP, with the prefix the launcher puts before a daemon.
 */
class HangupRestoredTest {
    @Test
    void aProcessStartedUnderAnIgnoredHangupGetsItsDefaultBack() throws Exception {
        List<String> prefix = RackCommand.hangupRestored(true);
        Assumptions.assumeFalse(prefix.isEmpty(), "this machine's env takes no --default-signal");
        assertTrue(hangupIgnoredIn(List.of()), "the shell's trap makes SIGHUP ignored in what it execs");
        assertTrue(!hangupIgnoredIn(prefix), "the launcher's prefix restores SIGHUP's default");
    }

    @Test
    void nothingIsAddedWhenTheLauncherTakesSigHup() {
        assertEquals(List.of(), RackCommand.hangupRestored(false));
    }

    /** Whether SIGHUP is ignored in a process exec'd, through {@code prefix}, by a shell that ignores it. */
    private static boolean hangupIgnoredIn(List<String> prefix) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "trap '' HUP; exec \"$@\"", "sh"));
        cmd.addAll(prefix);
        cmd.addAll(List.of("grep", "^SigIgn:", "/proc/self/status"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.waitFor(), out);
        return (Long.parseUnsignedLong(out.substring("SigIgn:".length()).trim(), 16) & 1L) != 0;
    }
}
