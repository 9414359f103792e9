package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fold.Ordering;

/**
 * Issue 35's bar on real daemons: a sled whose output directory (and so its journal) is a 3 MB
 * tmpfs. A job larger than the disk stops at the disk's reserve and says {@code no-space}; jobs
 * with 40 KB commands, which its journal records, leave it serving; then the disk is filled from
 * outside (as another writer on the same disk would): the sled refuses its jobs {@code no-space}
 * and answers {@code /ready} 503 saying so, never ready, never exiting; once the space is freed
 * it answers ready and serves the next job within 30 s, without a restart. Skipped, saying why,
 * where this process may not mount a tmpfs.
 */
class FullDiskTest extends ProcessRack {
    static final int SLEDS = 3;

    @Test
    void aFullOutputDiskIsAStateTheSledRecoversFromWithoutARestart() throws Exception {
        rack = RackCommand.create(dir, SLEDS, LocalRack.freePorts(SLEDS), Ordering.SIGNED);
        Path out = rack.sleds().get(0).output();
        Files.createDirectories(out);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", out.toString())
                .redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes());
        Assumptions.assumeTrue(mount.waitFor() == 0, "cannot mount a tmpfs here (" + said.strip() + "): this needs root "
                + "and mounts allowed; the full disk is not tried");
        try {
            for (int i = 0; i < SLEDS; i++) {
                processes.add(RackAccess.start(dir, rack.sleds().get(i)));
            }
            await("one universe", () -> oneUniverse(SLEDS));
            assertEquals(0, cli(1, "session", "start", "--wait").exit());
            String board0 = rack.sleds().get(0).baseboard();
            // A job larger than the disk: its output stops at the reserve, and it says why.
            String big = start(1, "0", "head -c 5000000 /dev/zero");
            await("the big job ended on sled 0", () -> "error".equals(statuses(1, big).get(board0)));
            assertTrue(status(1, big, board0).path("detail").asString().contains("no-space"),
                    "the big job's error names the full disk: " + status(1, big, board0));
            // Jobs whose 40 KB commands sled 0's journal records, on a disk with little room left.
            String filler = ": " + "x".repeat(40_000);
            for (int i = 0; i < 40; i++) {
                start(1, "1,2", filler);
            }
            String after = start(1, "0", "echo served");
            await("sled 0 serves a job after the fillers", () -> "stopped".equals(statuses(1, after).get(board0)));
            assertTrue(processes.get(0).isAlive(), "sled 0 is still running");

            // Another writer fills the disk: the sled is short of space, a typed state.
            Path hog = out.resolve("hog");
            fill(hog);
            await("sled 0 says it is short of space", () -> readyReasons(0).contains("no-space"));
            String refused = start(1, "0", "echo never");
            await("sled 0 refused the job", () -> "error".equals(statuses(1, refused).get(board0)));
            JsonNode r = status(1, refused, board0);
            assertEquals("no-space", r.path("error").asString(), r.toString());
            assertTrue(r.path("sled_started_at").isMissingNode(),
                    "a refused job never started: " + r);
            assertTrue(!ready(0), "never ready while short of space");
            assertEquals(200, client(0).probe("/health").status(), "a full disk is not a failure: a restart frees nothing");

            // Space returns: the sled serves again, without a restart.
            Files.delete(hog);
            try (var jobs = Files.list(out.resolve("jobs"))) {
                for (Path d : (Iterable<Path>) jobs::iterator) {
                    new ProcessBuilder("rm", "-rf", d.toString()).start().waitFor();
                }
            }
            long t0 = System.nanoTime();
            String next = start(1, "0", "echo again");
            Duration left = Duration.ofSeconds(30).minusNanos(System.nanoTime() - t0);
            Awaitility.await().atMost(left).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertTrue("stopped".equals(statuses(1, next).get(board0)) && ready(0),
                            () -> "sled 0 serves the next job and answers ready within 30 s of space returning: "
                                    + statuses(1, next) + " " + readyReasons(0)));
            assertTrue(processes.get(0).isAlive(), "sled 0 was never restarted");
            List<String> log = Files.readString(out.getParent().resolve("daemon.log")).lines().toList();
            assertTrue(log.stream().noneMatch(l -> l.contains("stopped admitting")), "sled 0 never failed: "
                    + log.stream().filter(l -> l.contains("ERROR")).limit(20).toList());
        } finally {
            processes.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
            processes.forEach(Process::destroyForcibly);
            for (Process p : processes) {
                p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            new ProcessBuilder("umount", "-l", out.toString()).start().waitFor();
            if (System.getProperty("sush.fulldisk.keepLog") != null) {
                Files.copy(out.getParent().resolve("daemon.log"), Path.of(System.getProperty("sush.fulldisk.keepLog")),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Writes {@code file} until the disk refuses: every byte of it taken. */
    private static void fill(Path file) throws java.io.IOException {
        byte[] block = new byte[64 << 10];
        try (var o = Files.newOutputStream(file)) {
            for (int i = 0; i < 1024; i++) {
                o.write(block);
            }
        } catch (java.io.IOException e) {
            // the disk is full: what fitted stays
        }
    }

    private JsonNode status(int via, String job, String board) {
        try {
            return client(via).get("/jobs/" + job + "/status").get("statuses").path(board);
        } catch (Client.Failure f) {
            throw new AssertionError("job " + job + "'s status: " + f.getMessage(), f);
        }
    }

    /** Why sled {@code i} is not ready, as one text ("" when it is, or does not answer). */
    private String readyReasons(int i) {
        try {
            return client(i).probe("/ready").body().toString();
        } catch (Client.Failure f) {
            return "";
        }
    }

    /** Whether sled {@code i} answers ready (200); a sled that does not answer is not ready. */
    private boolean ready(int i) {
        try {
            return client(i).probe("/ready").status() == 200;
        } catch (Client.Failure f) {
            return false;
        }
    }
}
