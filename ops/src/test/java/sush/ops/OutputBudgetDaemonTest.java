package sush.ops;

import sush.ops.wire.Json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.Client;
import sush.ops.daemon.Daemon;
import sush.projections.fold.Ordering;

/**
 * Issue 35: the output budget kept by the daemon as an operator runs it, not only by its class
 * (whose test passed while the daemon never called it successfully): a sled with a 100 KB budget
 * stays within it, plus the job that just ended, over ten jobs of 120 KB; the oldest outputs go
 * first, and a deleted one answers that it was deleted. Issue 39: the count of jobs kept holds
 * too, for outputs of a few bytes that no byte budget would ever reach (the budget's memory and
 * the disk's directories followed every job the sled ever ran).
 */
class OutputBudgetDaemonTest {
    static final long BUDGET_BYTES = 100_000;
    static final long JOB_BYTES = 120_000;
    static final int MAX_JOBS = 4;

    @TempDir
    static Path root;
    static LocalRack rack;
    static Client client;

    @BeforeAll
    static void up() throws Exception {
        rack = new LocalRack(root.resolve("rack"), 1, Ordering.SIGNED);
        Daemon.Settings d = rack.rack.settings(rack.rack.sleds().get(0), Optional.empty());
        rack.daemons.get(0).close();
        rack.daemons.set(0, Daemon.start(new Daemon.Settings(d.baseboard(), d.cubby(), d.gossip(), d.api(), d.m2(),
                d.output(), d.trust(), d.journalKey(), d.peers(), d.tls(), d.identities(), d.operators(), d.ordering(),
                d.journalMaxBytes(), BUDGET_BYTES, d.jobLimits()).withOutputMaxJobs(MAX_JOBS)));
        client = LocalRack.clientOf(rack.dir, rack.url(0));
    }

    @AfterAll
    static void down() {
        rack.close();
    }

    @Test
    void aSmallBudgetIsKeptByTheDaemonOldestFirstAndADeletedOutputSaysSo() throws Exception {
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            jobs.add(run("head -c " + JOB_BYTES + " /dev/zero | tr '\\0' x"));
        }
        Path outputs = rack.rack.sleds().get(0).output().resolve("jobs");
        await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> {
                    long total = bytes(outputs);
                    assertTrue(total <= BUDGET_BYTES + JOB_BYTES + 16_384, "within the budget plus one job: " + total
                            + " bytes");
                });
        // The newest output is kept, the oldest went, and says it went.
        var newest = client.raw("GET", "/jobs/" + jobs.get(9) + "/output/stdout", new byte[0], Map.of());
        assertEquals(200, newest.statusCode(), newest.body());
        assertEquals(JOB_BYTES, newest.body().length());
        var oldest = client.raw("GET", "/jobs/" + jobs.get(0) + "/output/stdout", new byte[0], Map.of());
        assertEquals(410, oldest.statusCode(), oldest.body());
        assertTrue(oldest.body().contains("output-deleted"), oldest.body());
    }

    @Test
    void theCountOfJobsKeptHoldsForTinyOutputs() throws Exception {
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < MAX_JOBS + 3; i++) {
            jobs.add(run("echo tiny " + i));
        }
        Path outputs = rack.rack.sleds().get(0).output().resolve("jobs");
        await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> {
                    try (Stream<Path> dirs = Files.list(outputs)) {
                        long n = dirs.filter(Files::isDirectory).count();
                        assertTrue(n <= MAX_JOBS, n + " job directories kept, at most " + MAX_JOBS);
                    }
                });
        var newest = client.raw("GET", "/jobs/" + jobs.get(jobs.size() - 1) + "/output/stdout", new byte[0], Map.of());
        assertEquals(200, newest.statusCode(), newest.body());
        assertEquals("tiny " + (jobs.size() - 1) + "\n", newest.body());
        var oldest = client.raw("GET", "/jobs/" + jobs.get(0) + "/output/stdout", new byte[0], Map.of());
        assertEquals(410, oldest.statusCode(), oldest.body());
        assertTrue(oldest.body().contains("--output-max-jobs"), oldest.body());
    }

    /** Starts {@code command} on the sled through the CLI, waits for its end, and returns its job id. */
    private static String run(String command) throws Exception {
        CliRun r = CliRun.of("job", "start", "--url", rack.url(0), "--operator-key",
                rack.dir.resolve("operator.key").toString(), "--key", rack.dir.resolve("signer.key").toString(),
                "--wait", "--json", "--", command);
        assertEquals(0, r.exit(), r.out() + r.err());
        return Json.MAPPER.readTree(r.lastLine()).get("job_id").asString();
    }

    private static long bytes(Path dir) throws java.io.IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (java.io.IOException e) {
                    return 0;
                }
            }).sum();
        }
    }
}
