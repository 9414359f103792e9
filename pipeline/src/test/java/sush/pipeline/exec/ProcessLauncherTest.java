package sush.pipeline.exec;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.projections.id.Chain;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

class ProcessLauncherTest {
    private static final SessionId SESSION = new SessionId(new byte[11]);
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path output;
    private ProcessLauncher launcher;
    private int jobs;

    private Launcher.Running run(String command, Limits limits) {
        if (launcher == null) {
            launcher = new ProcessLauncher(output);
        }
        JobId job = Chain.next(Hashes.sha3("test-job", new byte[] {(byte) ++jobs}));
        return launcher.launch(new LaunchRequest(SESSION, job, command, "*", limits));
    }

    private Launcher.Running run(String command) {
        return run(command, Limits.DEFAULT);
    }

    private String stdout(Launcher.Running r) throws Exception {
        return Files.readString(launcher.jobDir(r.job()).resolve("stdout"));
    }

    @AfterEach
    void close() {
        if (launcher != null) {
            launcher.close();
        }
    }

    @Test
    void theEnvironmentIsClearedButForPathAndTheJobsOwnVariables() throws Exception {
        Launcher.Running r = run("env");
        assertEquals(0, ((Ending.Exited) r.ending().block(WAIT)).code());
        Set<String> names = new TreeSet<>();
        for (String line : stdout(r).split("\n")) {
            names.add(line.substring(0, line.indexOf('=')));
        }
        names.removeAll(Set.of("PWD", "SHLVL", "_")); // bash sets these itself
        assertEquals(new TreeSet<>(Set.of("PATH", "SUSH_COMMAND", "SUSH_JOB_ID", "SUSH_JOB_OUTPUT_DIR")), names);
        assertTrue(stdout(r).contains("PATH=" + ProcessLauncher.PATH + "\n"));
        assertTrue(stdout(r).contains("SUSH_JOB_ID=" + r.job().codephrase() + "\n"));
    }

    @Test
    void outputIsOwnerOnlyAndJobJsonExistsBeforeTheSpawn() throws Exception {
        Launcher.Running r = run("cat job.json; echo; stat -c %a . stdout");
        r.ending().block(WAIT);
        Path dir = launcher.jobDir(r.job());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        for (String f : new String[] {"stdout", "stderr", "job.json"}) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(f))), f);
        }
        String out = stdout(r);
        assertTrue(out.contains("\"job\":\"" + r.job().codephrase() + "\""), out);
        assertTrue(out.contains("700\n600\n"), out);
    }

    @Test
    void anEndedJobLeavesNoTimerBehind() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertInstanceOf(Ending.Exited.class, run("true").ending().block(WAIT));
        }
        ScheduledThreadPoolExecutor timers = (ScheduledThreadPoolExecutor) launcher.timers;
        // The wall-time timers were cancelled as the jobs ended; none waits for its deadline.
        await().atMost(WAIT).until(() -> timers.getQueue().isEmpty());
    }

    @Test
    void exitCodesLengthsAndHashesAreReported() throws Exception {
        Launcher.Running r = run("printf hello; printf oops >&2; exit 3");
        Ending.Exited e = assertInstanceOf(Ending.Exited.class, r.ending().block(WAIT));
        assertEquals(3, e.code());
        assertEquals(5, e.output().stdoutBytes());
        assertArrayEquals(Hashes.sha3Raw("hello".getBytes(StandardCharsets.UTF_8)), e.output().stdoutSha3());
        assertEquals(4, e.output().stderrBytes());
        assertArrayEquals(Hashes.sha3Raw(Files.readAllBytes(launcher.jobDir(r.job()).resolve("stderr"))),
                e.output().stderrSha3());
    }

    @Test
    void theJobLeadsItsOwnProcessGroup() throws Exception {
        Launcher.Running r = run("echo $$ $(ps -o pgid= -p $$) $(ps -o sid= -p $$)");
        r.ending().block(WAIT);
        String[] ids = stdout(r).trim().split("\\s+");
        assertEquals(ids[0], ids[1], "pgid is the job's pid");
        assertEquals(ids[0], ids[2], "and so is its session");
    }

    @Test
    void theJobHoldsNoDescriptorOfTheDaemonAndNoSignalBlockedOrIgnored() throws Exception {
        // Descriptors the daemon holds without close-on-exec must not reach a job.
        try (java.io.RandomAccessFile held = new java.io.RandomAccessFile(output.resolve("held").toFile(), "rw")) {
            held.write(1);
            Launcher.Running r = run("ls /proc/$$/fd > fds; sort -n fds | tr '\\n' ' '; echo; grep -E '^Sig(Blk|Ign)' /proc/$$/status");
            assertEquals(0, ((Ending.Exited) r.ending().block(WAIT)).code());
            String[] lines = stdout(r).split("\n");
            assertEquals("0 1 2 ", lines[0], "the job's descriptors");
            if (ProcessLauncher.SPAWN) {
                // The JDK's start passes on the daemon thread's mask (SIGQUIT blocked: SigBlk 4).
                assertEquals("SigBlk:\t0000000000000000", lines[1]);
                assertEquals("SigIgn:\t0000000000000000", lines[2]);
            }
        }
    }

    @Test
    void aProgramThatCannotBeFoundFailsTheSpawnWithItsReason() throws Exception {
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> SessionSpawn.resolve("definitely-not-here-sush", ProcessLauncher.PATH));
        assertTrue(e.getMessage().contains("No such file or directory"), e.getMessage());
        assertEquals("/bin/sh", SessionSpawn.resolve("/bin/sh", ""));
    }

    @Test
    void theWallTimeLimitKillsTheGroup() {
        long t0 = System.nanoTime();
        Launcher.Running r = run("sleep 30", new Limits(Duration.ofMillis(300), 1024, Duration.ofSeconds(1)));
        Ending.Killed k = assertInstanceOf(Ending.Killed.class, r.ending().block(WAIT));
        assertEquals(Ending.Cause.WALL_TIME, k.cause());
        assertEquals(ProcessLauncher.SIGKILL, k.signal());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());
    }

    @Test
    void aCommandThatFloodsStdoutStopsAtTheOutputLimit() throws Exception {
        Launcher.Running r = run("yes flood", new Limits(Duration.ofSeconds(30), 1 << 20, Duration.ofSeconds(1)));
        Ending.Killed k = assertInstanceOf(Ending.Killed.class, r.ending().block(WAIT));
        assertEquals(Ending.Cause.OUTPUT_LIMIT, k.cause());
        assertEquals(1 << 20, k.output().stdoutBytes());
        assertEquals(1 << 20, Files.size(launcher.jobDir(r.job()).resolve("stdout")));
    }

    /** D-031: the sled's limits, and what a job asks of them. */
    private static final Limits SLED = new Limits(Duration.ofSeconds(60), 1 << 20, Duration.ofSeconds(1));

    private static sush.projections.job.JobLimits asked(long wallMs, long output, long cpu, long as, long fsize) {
        return new sush.projections.job.JobLimits(wallMs, output, cpu, as, fsize);
    }

    @Test
    void aJobsOwnWallTimeEndsItBelowTheSleds() {
        long t0 = System.nanoTime();
        Ending.Killed wall = assertInstanceOf(Ending.Killed.class, run("sleep 30", SLED.forJob(asked(400, 0, 0, 0, 0)))
                .ending().block(WAIT));
        assertEquals(Ending.Cause.WALL_TIME, wall.cause());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());
    }

    @Test
    void aJobsOwnOutputLimitIsPerStream() {
        Launcher.Running flood = run("echo ok >&2; yes flood", SLED.forJob(asked(0, 4096, 0, 0, 0)));
        Ending.Killed out = assertInstanceOf(Ending.Killed.class, flood.ending().block(WAIT));
        assertEquals(Ending.Cause.OUTPUT_LIMIT, out.cause());
        assertEquals(4096, out.output().stdoutBytes());
        assertEquals(3, out.output().stderrBytes());
    }

    @Test
    void aJobsCpuLimitEndsASpinBySigxcpu() {
        long t0 = System.nanoTime();
        Ending.Killed cpu = assertInstanceOf(Ending.Killed.class, run("while :; do :; done", SLED.forJob(
                asked(0, 0, 1, 0, 0))).ending().block(WAIT));
        assertEquals(Ending.Cause.CPU_LIMIT, cpu.cause());
        assertEquals(ProcessLauncher.SIGXCPU, cpu.signal());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(20).toNanos());
    }

    @Test
    void aJobsFileSizeLimitEndsTheWriterBySigxfsz() throws Exception {
        Launcher.Running big = run("head -c 100000 /dev/zero > big", SLED.forJob(asked(0, 0, 0, 0, 8192)));
        Ending.Killed fsize = assertInstanceOf(Ending.Killed.class, big.ending().block(WAIT));
        assertEquals(Ending.Cause.FILE_SIZE_LIMIT, fsize.cause());
        assertEquals(8192, Files.size(launcher.jobDir(big.job()).resolve("big")));
    }

    @Test
    void aJobsAddressSpaceLimitIsAppliedAndNoLimitMeansNoPrlimit() throws Exception {
        Launcher.Running as = run("grep 'Max address space' /proc/self/limits", SLED.forJob(asked(0, 0, 0, 1L << 30,
                0)));
        assertInstanceOf(Ending.Exited.class, as.ending().block(WAIT));
        assertTrue(stdout(as).matches("Max address space\\s+1073741824\\s+1073741824\\s+bytes\\s*"), stdout(as));
        assertEquals(java.util.List.of("setsid", "bash", "-c", "true"), ProcessLauncher.command(new LaunchRequest(
                SESSION, Chain.first(SESSION), "true", "*", SLED)));
    }

    /**
     * Issue 19: an interactive job runs on a real terminal (its controlling tty), takes typed
     * input and window sizes, shows clients what it prints with the recent past on attach, and
     * is recorded and hashed like any job.
     */
    @Test
    void anInteractiveJobRunsOnATerminalThatClientsAttachTo() throws Exception {
        if (launcher == null) {
            launcher = new ProcessLauncher(output);
        }
        JobId job = Chain.next(Hashes.sha3("test-job", new byte[] {(byte) ++jobs}));
        Launcher.Running r = launcher.launch(new LaunchRequest(SESSION, job, "bash --norc --noprofile", "*",
                Limits.DEFAULT, sush.projections.job.JobMode.INTERACTIVE));
        Terminal t = launcher.terminal(job).orElseThrow();
        java.util.concurrent.BlockingQueue<byte[]> seen = new java.util.concurrent.LinkedBlockingQueue<>();
        t.attach().subscribe(seen::add);
        t.resize(40, 100);
        t.input("echo $((6*7)); tty; stty size; [ -t 0 ] && echo has-tty\n".getBytes());
        String shown = until(seen, "has-tty");
        assertTrue(shown.contains("42"), shown);
        assertTrue(shown.contains("/dev/pts/"), shown);
        assertTrue(shown.contains("40 100"), shown);
        assertEquals(java.util.List.of(40, 100), java.util.List.of(t.size()[0], t.size()[1]));
        // A second client attaching sees the recent past first.
        java.util.concurrent.BlockingQueue<byte[]> late = new java.util.concurrent.LinkedBlockingQueue<>();
        t.attach().subscribe(late::add);
        assertTrue(until(late, "has-tty").contains("42"));
        t.input("exit 3\n".getBytes());
        Ending.Exited e = assertInstanceOf(Ending.Exited.class, r.ending().block(WAIT));
        assertEquals(3, e.code());
        assertTrue(t.ended());
        assertTrue(launcher.terminal(job).isEmpty(), "no terminal once the job ended");
        String recorded = Files.readString(launcher.jobDir(job).resolve("stdout"));
        assertTrue(recorded.contains("42") && recorded.contains("has-tty"), recorded);
        assertEquals(Files.size(launcher.jobDir(job).resolve("stdout")), e.output().stdoutBytes());
    }

    /** A client that stops reading is dropped once its queue is full; the job and other clients go on. */
    @Test
    void aLaggingClientIsDroppedNeverTheJob() throws Exception {
        if (launcher == null) {
            launcher = new ProcessLauncher(output);
        }
        JobId job = Chain.next(Hashes.sha3("test-job", new byte[] {(byte) ++jobs}));
        Launcher.Running r = launcher.launch(new LaunchRequest(SESSION, job, "yes lagging-client-test", "*",
                Limits.DEFAULT, sush.projections.job.JobMode.INTERACTIVE));
        Terminal t = launcher.terminal(job).orElseThrow();
        java.util.concurrent.atomic.AtomicLong taken = new java.util.concurrent.atomic.AtomicLong();
        t.attach().subscribe(new reactor.core.publisher.BaseSubscriber<byte[]>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                s.request(1); // one chunk, then never again
            }

            @Override
            protected void hookOnNext(byte[] value) {
                taken.incrementAndGet();
            }
        });
        await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25))
                .untilAsserted(() -> assertEquals(0, t.attached(), "the lagging client was dropped"));
        assertEquals(1, taken.get());
        java.util.concurrent.BlockingQueue<byte[]> fresh = new java.util.concurrent.LinkedBlockingQueue<>();
        t.attach().subscribe(fresh::add);
        assertTrue(new String(fresh.poll(5, java.util.concurrent.TimeUnit.SECONDS)).contains("lagging-client-test"),
                "a new client sees the job, which goes on");
        r.stop();
        assertInstanceOf(Ending.Killed.class, r.ending().block(WAIT));
    }

    /** Everything {@code q} delivered until {@code marker} appears as its own line (10 s at most). */
    private static String until(java.util.concurrent.BlockingQueue<byte[]> q, String marker) throws Exception {
        StringBuilder b = new StringBuilder();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            byte[] c = q.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
            if (c != null) {
                b.append(new String(c, java.nio.charset.StandardCharsets.UTF_8));
                if (b.toString().contains("\n" + marker) || b.toString().contains("\r" + marker)) {
                    return b.toString();
                }
            }
        }
        throw new AssertionError("no " + marker + " in: " + b);
    }

    @Test
    void stopKillsTheWholeGroupEvenAChildThatIgnoresSigterm() throws Exception {
        Launcher.Running r = run("bash -c 'trap \"\" TERM; sleep 60' & echo $! > child.pid; trap '' TERM; sleep 60",
                new Limits(Duration.ofSeconds(60), 1024, Duration.ofMillis(300)));
        Path pidFile = launcher.jobDir(r.job()).resolve("child.pid");
        await("the child's pid written").atMost(Duration.ofSeconds(4)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20)).until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0);
        long child = Long.parseLong(Files.readString(pidFile).trim());
        assertTrue(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false));
        r.stop();
        Ending.Killed k = assertInstanceOf(Ending.Killed.class, r.ending().block(WAIT));
        assertEquals(Ending.Cause.STOP, k.cause());
        assertEquals(ProcessLauncher.SIGKILL, k.signal(), "SIGTERM was ignored, so SIGKILL followed");
        // The group's SIGKILL is sent; the orphan is gone once its new parent reaped it, which on a
        // loaded machine (two test JVMs on two cores) took longer than 2 s once.
        await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertFalse(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false),
                        "the child died too"));
    }

    @Test
    void aLaunchReturnsBeforeTheJobStartsAndAStopAskedMeanwhileStopsIt() throws Exception {
        launcher = new ProcessLauncher(output);
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        launcher.onStartingThread(() -> {
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // The starting thread is held: a launch that prepared or forked on the caller would not return.
        Launcher.Running r = run("sleep 30");
        assertFalse(Files.exists(launcher.jobDir(r.job())), "nothing of the job exists yet");
        r.stop();
        hold.countDown();
        Ending.Killed k = assertInstanceOf(Ending.Killed.class, r.ending().block(WAIT));
        assertEquals(Ending.Cause.STOP, k.cause());
        assertTrue(Files.exists(launcher.jobDir(r.job()).resolve("job.json")), "it started, then was stopped");
    }

    @Test
    void whatAJobLeavesRunningEndsWithIt() {
        long t0 = System.nanoTime();
        Launcher.Running r = run("sleep 60 & echo started");
        Ending.Exited e = assertInstanceOf(Ending.Exited.class, r.ending().block(WAIT));
        assertEquals(0, e.code());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos(), "the background sleep did not hold it");
    }

    @Test
    void anExistingOutputDirectoryIsNeverOverwritten() throws Exception {
        launcher = new ProcessLauncher(output);
        JobId job = Chain.next(Hashes.sha3("dup", new byte[0]));
        Files.createDirectories(launcher.jobDir(job));
        Ending.Failed f = assertInstanceOf(Ending.Failed.class,
                launcher.launch(new LaunchRequest(SESSION, job, "true", "*", Limits.DEFAULT)).ending().block(WAIT));
        assertEquals(Ending.Failed.Kind.IO, f.kind());
    }

    @Test
    void pastTheBoundOnRunningJobsALaunchFailsAtOnceAndTheNextOneRunsAfterAnEnd() throws Exception {
        launcher = new ProcessLauncher(output, 2);
        Limits l = new Limits(Duration.ofSeconds(30), 1024, Duration.ofMillis(100));
        Launcher.Running a = run("sleep 30", l);
        Launcher.Running b = run("sleep 30", l);
        Ending.Failed f = assertInstanceOf(Ending.Failed.class, run("true", l).ending().block(WAIT));
        assertEquals(Ending.Failed.Kind.SPAWN, f.kind());
        assertTrue(f.reason().contains("2 jobs already running"), f.reason());
        a.stop();
        a.ending().block(WAIT);
        assertInstanceOf(Ending.Exited.class, run("true", l).ending().block(WAIT), "room again after an end");
        b.stop();
        b.ending().block(WAIT);
    }
}
