package sush.pipeline.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SessionSpawn}: a job's first process started as a session leader (D-038). */
class SessionSpawnTest {
    @TempDir
    Path dir;

    @BeforeEach
    void onlyWhereItSpawns() {
        Assumptions.assumeTrue(SessionSpawn.available(), () -> "no posix_spawn here: "
                + SessionSpawn.unavailable().orElse(""));
    }

    @AfterEach
    void noHook() {
        SessionSpawn.afterSpawn = null;
    }

    @Test
    void aJobThatEndedBeforeItsStreamsWereOpenedIsStillReadToTheEnd() throws Exception {
        // The child is gone before the sled opens its read ends (reopened through /proc): what it
        // wrote is still read, and the streams end.
        SessionSpawn.afterSpawn = pid -> sleep(500);
        CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
            try {
                Process p = SessionSpawn.start(List.of("sh", "-c", "echo out; echo err >&2; exit 7"), dir,
                        Map.of("PATH", ProcessLauncher.PATH), ProcessLauncher.PATH);
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                return out + err + p.waitFor();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals("out\nerr\n7", read.get(Duration.ofSeconds(20).toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void theExitIsReportedAsTheJdkReportsIt() throws Exception {
        Process p = SessionSpawn.start(List.of("sh", "-c", "kill -9 $$"), dir, Map.of(), ProcessLauncher.PATH);
        assertEquals(0x80 + 9, p.waitFor());
        assertEquals(0x80 + 9, p.exitValue());
        assertTrue(!p.isAlive());
        Process q = SessionSpawn.start(List.of("sleep", "30"), dir, Map.of(), ProcessLauncher.PATH);
        assertTrue(q.isAlive());
        assertThrows(IllegalThreadStateException.class, q::exitValue);
        q.destroy();
        assertTrue(q.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0x80 + 15, q.exitValue());
        q.destroy(); // after the reap: never signals the freed pid, never fails
    }

    @Test
    void aDirectoryThatIsGoneFailsTheStartAndLeavesNothingOpen() throws Exception {
        java.util.Set<String> before = pipes();
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> SessionSpawn.start(List.of("true"),
                dir.resolve("gone"), Map.of(), ProcessLauncher.PATH));
        assertTrue(e.getMessage().contains("No such file or directory"), e.getMessage());
        java.util.Set<String> left = pipes();
        left.removeAll(before);
        assertEquals(java.util.Set.of(), left, "pipes this test's start left open");
    }

    /** The pipes this JVM holds open, by inode ({@code pipe:[N]}). */
    private static java.util.Set<String> pipes() throws java.io.IOException {
        java.util.Set<String> out = new java.util.HashSet<>();
        try (java.util.stream.Stream<Path> fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = java.nio.file.Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("pipe:")) {
                        out.add(target);
                    }
                } catch (java.io.IOException gone) {
                    // closed meanwhile (the listing's own descriptor among them)
                }
            }
        }
        return out;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
