package sush.pipeline.exec;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import sush.projections.id.Chain;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * Issue 22: what a job starts is the job's, whatever it does to leave its process group. Each
 * case runs on both mechanisms (cgroup v2 where the host has it, and the environment marker).
 */
class ContainmentTest {
    private static final SessionId SESSION = new SessionId(new byte[11]);
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path output;
    private ProcessLauncher launcher;
    private int jobs;
    private Long stray;

    private ProcessLauncher launcher(String mechanism) {
        Containment c;
        if (mechanism.equals("cgroup")) {
            Optional<Containment.Cgroup> g = Containment.Cgroup.create();
            if (g.isEmpty()) {
                System.out.println("skipped: no writable cgroup v2 hierarchy on this host");
            }
            Assumptions.assumeTrue(g.isPresent(), "a writable cgroup v2 hierarchy");
            c = g.get();
        } else {
            c = new Containment.Marker();
        }
        launcher = new ProcessLauncher(output, ProcessLauncher.MAX_RUNNING, c);
        return launcher;
    }

    private Launcher.Running run(String command, Limits limits) {
        JobId job = Chain.next(Hashes.sha3("contained", new byte[] {(byte) ++jobs}));
        return launcher.launch(new LaunchRequest(SESSION, job, command, "*", limits));
    }

    private long pidFrom(Launcher.Running r, String file) throws Exception {
        Path f = launcher.jobDir(r.job()).resolve(file);
        await(file + " written").atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10)).until(() -> Files.exists(f) && !Files.readString(f).isBlank());
        return Long.parseLong(Files.readString(f).trim());
    }

    /** Whether process {@code pid} is still alive (not gone, not a zombie) after 2 s of waiting for its end. */
    private static boolean alive(long pid) {
        try {
            await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> state(pid).map("Z"::equals).orElse(true));
            return false;
        } catch (ConditionTimeoutException stillAlive) {
            return true;
        }
    }

    /** The process's state letter from /proc (Z: a zombie, dead but not reaped by its parent). */
    private static Optional<String> state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return Optional.of(stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    @AfterEach
    void close() {
        if (stray != null) {
            ProcessHandle.of(stray).ifPresent(ProcessHandle::destroyForcibly);
        }
        if (launcher != null) {
            launcher.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cgroup", "marker"})
    void aChildThatLeftTheGroupIsKilledWithinFiveSecondsOfAStop(String mechanism) throws Exception {
        launcher(mechanism);
        Launcher.Running r = run("setsid sleep 35 & echo $! > child.pid; sleep 30",
                new Limits(Duration.ofSeconds(60), 1 << 20, Duration.ofMillis(500)));
        long child = pidFrom(r, "child.pid");
        assertTrue(alive(child));
        long t0 = System.nanoTime();
        r.stop();
        Ending.Killed k = assertInstanceOf(Ending.Killed.class, r.ending().block(WAIT));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "ended within 5 s of the stop");
        assertEquals(Ending.Cause.STOP, k.cause());
        assertFalse(alive(child), "the escaped child died with the job");
        assertTrue(k.leftovers().stream().anyMatch(l -> l.startsWith(child + " sleep 35")), k.leftovers().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cgroup", "marker"})
    void aChildHoldingThePipesNeitherDelaysTheEndingNorOutlivesTheJob(String mechanism) throws Exception {
        launcher(mechanism);
        long t0 = System.nanoTime();
        Launcher.Running r = run("setsid sleep 35 & echo $! > child.pid; sleep 0.3; echo done", Limits.DEFAULT);
        Ending.Exited e = assertInstanceOf(Ending.Exited.class, r.ending().block(WAIT));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "the child's pipes did not hold it");
        assertEquals(0, e.code());
        assertEquals(5, e.output().stdoutBytes(), "done\n was kept");
        long child = pidFrom(r, "child.pid");
        assertFalse(alive(child));
        assertEquals(1, e.leftovers().size(), e.leftovers().toString());
        String listed = Files.readString(launcher.jobDir(r.job()).resolve("leftovers"));
        assertTrue(listed.startsWith(child + " sleep 35"), listed);
    }

    @ParameterizedTest
    @ValueSource(strings = {"cgroup", "marker"})
    void aChildWithItsPipesClosedDoesNotOutliveTheJob(String mechanism) throws Exception {
        launcher(mechanism);
        Launcher.Running r = run("setsid sleep 35 </dev/null >/dev/null 2>&1 & echo $! > child.pid", Limits.DEFAULT);
        Ending.Exited e = assertInstanceOf(Ending.Exited.class, r.ending().block(WAIT));
        assertEquals(0, e.code());
        assertFalse(alive(pidFrom(r, "child.pid")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"cgroup", "marker"})
    void aJobStillSeesAndSignalsTheHostsProcesses(String mechanism) throws Exception {
        launcher(mechanism);
        Launcher.Running r = run("ps -e -o pid=", Limits.DEFAULT);
        assertInstanceOf(Ending.Exited.class, r.ending().block(WAIT));
        List<String> pids = Files.readAllLines(launcher.jobDir(r.job()).resolve("stdout")).stream().map(String::strip)
                .toList();
        assertTrue(pids.contains(Long.toString(ProcessHandle.current().pid())), "ps -e lists the daemon");
    }

    @Test
    void inACgroupTheWholeJobIsKilledAndTheContainerRemoved() throws Exception {
        launcher("cgroup");
        Containment.Cgroup g = (Containment.Cgroup) launcherContainment();
        // Two seconds of wall time: on a loaded machine the three children must exist before the kill.
        Launcher.Running r = run("for i in 1 2 3; do setsid sleep 40 & done; sleep 40",
                new Limits(Duration.ofSeconds(2), 1 << 20, Duration.ofMillis(100)));
        Ending.Killed k = assertInstanceOf(Ending.Killed.class, r.ending().block(WAIT));
        assertEquals(Ending.Cause.WALL_TIME, k.cause());
        assertEquals(3, k.leftovers().size(), k.leftovers().toString());
        try (var left = Files.list(g.root())) {
            assertEquals(0, left.filter(Files::isDirectory).count(), "the job's cgroup was removed");
        }
        assertTrue(launcher.containment().startsWith("cgroup2 "));
    }

    @Test
    void aProcessThatLeavesTheCgroupHoldingThePipeCostsTheDrainBoundOnly() throws Exception {
        launcher("cgroup");
        Path top = Containment.Cgroup.cgroup2Mount().orElseThrow().resolve("cgroup.procs");
        // Root can move itself out of the job's cgroup and clear its environment: it escapes
        // both mechanisms, but it cannot hold the job's ending past the drain bound.
        long t0 = System.nanoTime();
        Launcher.Running r = run("env -i /bin/sh -c 'echo $$ > " + top + "; echo $$ > escaped.pid; exec sleep 30' &"
                + " sleep 0.5; echo out", Limits.DEFAULT);
        Ending.Exited e = assertInstanceOf(Ending.Exited.class, r.ending().block(WAIT));
        stray = pidFrom(r, "escaped.pid");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 500 + ProcessLauncher.DRAIN.toMillis() + 3000, ms + " ms");
        assertEquals(4, e.output().stdoutBytes(), "out\n was kept");
    }

    private Containment launcherContainment() throws Exception {
        java.lang.reflect.Field f = ProcessLauncher.class.getDeclaredField("containment");
        f.setAccessible(true);
        return (Containment) f.get(launcher);
    }

    /** A leftover is named by its command line while it lives; one already ending never replaces that name. */
    @Test
    void aLeftoversDescriptionNamesItsCommandOrSaysItWasAlreadyEnding() throws Exception {
        long me = ProcessHandle.current().pid();
        String mine = Containment.describe(me);
        assertTrue(mine.startsWith(me + " ") && Containment.namesCommand(mine), mine);
        Process done = new ProcessBuilder("true").start();
        done.waitFor();
        String gone = Containment.describe(done.pid());
        assertEquals(done.pid() + " (gone)", gone);
        assertFalse(Containment.namesCommand(gone));
        assertFalse(Containment.namesCommand("12 (exited)"));
        assertTrue(Containment.namesCommand("12 sleep 35"));
    }
}
