package sush.pipeline.exec;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import sush.projections.id.JobId;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;

/**
 * A launched process and the threads and timers around it: its output pumped into its files
 * (or to its terminal or streaming client), its wall-time and stop-grace timers, the wait for
 * its first process's exit, after which whatever it left running is killed and noted, and its
 * ending, once its pipes are drained. Uses the {@link ProcessLauncher}'s threads, timers,
 * containment and count of running jobs.
 */
final class LaunchedJob implements Launcher.Running {
    private final LaunchRequest request;
    private final Process process;
    private final FileChannel out;
    private final FileChannel err;
    private final Path dir;
    private final String code;
    private final AtomicReference<Ending.Cause> cause = new AtomicReference<>();
    private final AtomicInteger lastSignal = new AtomicInteger();
    private final CompletableFuture<Ending> ending = new CompletableFuture<>();
    /** The job's other processes that were signalled to end, by pid: {@code pid command-line}. */
    private final Map<Long, String> leftovers = new ConcurrentSkipListMap<>();
    private final KeptStream stdout = new KeptStream();
    private final KeptStream stderr = new KeptStream();
    private final OutputPump pump;
    private volatile ScheduledFuture<?> wallTimer;
    private volatile ScheduledFuture<?> graceTimer;
    private final Pty pty;
    private final Terminal terminal;
    private final Outflow outflow;

    /** The launcher's, shared by its jobs. */
    private final ExecutorService copiers;
    private final ScheduledExecutorService timers;
    private final AtomicInteger running;
    private final Containment containment;
    private final Map<JobId, Terminal> terminals;
    private final Map<JobId, Outflow> outflows;

    LaunchedJob(ProcessLauncher launcher, LaunchRequest request, Process process, JobFiles files, Pty pty) {
        this.copiers = launcher.copiers;
        this.timers = launcher.timers;
        this.running = launcher.running;
        this.containment = launcher.containment;
        this.terminals = launcher.terminals;
        this.outflows = launcher.outflows;
        this.request = request;
        this.process = process;
        this.out = files.out();
        this.err = files.err();
        this.dir = files.dir();
        this.code = request.job().codephrase();
        this.pump = new OutputPump(request.limits(), launcher.disk, this::kill);
        this.pty = pty;
        this.terminal = pty == null ? null : new Terminal(request.job(), pty);
        this.outflow = request.mode() == JobMode.STREAMING
                ? new Outflow(request.job(), () -> kill(Ending.Cause.CLIENT_GONE)) : null;
    }

    /** Starts the job's copiers (or its terminal or outflow), its wall-time timer and the wait for its exit. */
    void begin() {
        CompletableFuture<Void> o;
        CompletableFuture<Void> e;
        if (pty != null) {
            // Interactive: the terminal is its stdout (stderr joins it there); shown to
            // attached clients and recorded. The master closes once every holder of the
            // slave closed it (the kernel's EIO), after the last byte.
            terminals.put(request.job(), terminal);
            o = CompletableFuture.runAsync(() -> {
                try {
                    pump.copy(pty.output(), out, stdout, terminal);
                } finally {
                    terminal.end();
                    terminals.remove(request.job());
                    pty.close();
                }
            }, copiers);
            JobFiles.closeQuietly(err);
            e = CompletableFuture.completedFuture(null);
        } else if (outflow != null) {
            // Streaming: stdout goes to the one client, hashed and counted, never stored.
            outflows.put(request.job(), outflow);
            // Issue 35: kept after the job until its one client read the end, or its wall time
            // passed with no client (a small output that ended before the client attached was
            // dropped at once, while the status vouched for its bytes).
            outflow.onDone(() -> outflows.remove(request.job(), outflow));
            timers.schedule(() -> {
                if (!outflow.claimed()) {
                    outflow.abandon();
                }
            }, request.limits().wallTime().toMillis(), TimeUnit.MILLISECONDS);
            o = CompletableFuture.runAsync(() -> pump.stream(process.getInputStream(), outflow, stdout), copiers);
            JobFiles.closeQuietly(out);
            e = CompletableFuture.runAsync(() -> pump.copy(process.getErrorStream(), err, stderr, null), copiers);
        } else {
            o = CompletableFuture.runAsync(() -> pump.copy(process.getInputStream(), out, stdout, null), copiers);
            e = CompletableFuture.runAsync(() -> pump.copy(process.getErrorStream(), err, stderr, null), copiers);
        }
        wallTimer = timers.schedule(() -> kill(Ending.Cause.WALL_TIME),
                request.limits().wallTime().toMillis(), TimeUnit.MILLISECONDS);
        // The exit is awaited on a pooled thread: Process.onExit() completes on a new thread
        // per process where the common pool has one worker (two cores), a thread per job.
        copiers.execute(() -> {
            awaitExit();
            // The job is its first process's lifetime: what it left running goes with it,
            // which also closes the pipes those leftovers held open.
            signal(() -> containment.killAll(code, process.pid()));
            CompletableFuture<Void> drained = CompletableFuture.allOf(o, e);
            if (!drained.isDone()) {
                try {
                    ScheduledFuture<?> cut = timers.schedule(() -> drained.complete(null),
                            ProcessLauncher.DRAIN.toMillis(), TimeUnit.MILLISECONDS);
                    drained.whenComplete((v, t) -> cut.cancel(false));
                } catch (RejectedExecutionException closing) {
                    // The launcher closed under a job that ended as its daemon stopped (issue 38:
                    // this thread died with a stack trace): its output is not waited for.
                    drained.complete(null);
                }
            }
            drained.whenComplete((v, t) -> finish());
        });
    }

    private void awaitExit() {
        boolean interrupted = false;
        while (true) {
            try {
                process.waitFor();
                break;
            } catch (InterruptedException ie) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void finish() {
        cancel(wallTimer);
        cancel(graceTimer);
        // A pipe still held past the drain (by a process outside the container) is no
        // longer kept: the job's output is what was read until now.
        KeptStream.Snapshot so = stdout.close();
        KeptStream.Snapshot se = stderr.close();
        containment.release(code);
        running.decrementAndGet();
        List<String> killed;
        synchronized (signalling) {
            killed = List.copyOf(leftovers.values());
        }
        if (!killed.isEmpty()) {
            try {
                JobFiles.writeOwnerOnly(dir.resolve("leftovers"), (String.join("\n", killed) + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            } catch (IOException ioe) {
                // The list is also in the ending; the file is a convenience.
            }
        }
        Output output = new Output(so.bytes(), so.sha3(), se.bytes(), se.sha3());
        Ending.Cause c = cause.get();
        if (c == null && !process.isAlive()) {
            c = rlimitCause(process.exitValue());
        }
        Ending end = so.error() != null || se.error() != null ? new Ending.Failed(Ending.Failed.Kind.IO,
                "keeping output: " + (so.error() != null ? so.error() : se.error()))
                : c == null ? new Ending.Exited(process.exitValue(), output, killed)
                : new Ending.Killed(c == Ending.Cause.CPU_LIMIT || c == Ending.Cause.FILE_SIZE_LIMIT
                        ? process.exitValue() - 128 : lastSignal.get(), c, output, killed);
        ending.complete(end);
    }

    /**
     * The rlimit that ended the job, read from its exit: SIGXCPU with a CPU limit asked,
     * SIGXFSZ with a file-size limit asked. (A job that catches SIGXCPU meets the hard limit
     * a second later: SIGKILL, reported as its exit like any signal nobody here sent.)
     */
    private Ending.Cause rlimitCause(int exit) {
        JobLimits j = request.limits().job();
        if (j.cpuSeconds() > 0 && exit == 128 + ProcessLauncher.SIGXCPU) {
            return Ending.Cause.CPU_LIMIT;
        }
        if (j.fileSizeBytes() > 0 && exit == 128 + ProcessLauncher.SIGXFSZ) {
            return Ending.Cause.FILE_SIZE_LIMIT;
        }
        return null;
    }

    private void kill(Ending.Cause why) {
        cause.compareAndSet(null, why);
        lastSignal.set(ProcessLauncher.SIGKILL);
        signal(() -> containment.killAll(code, process.pid()));
    }

    /**
     * Signals the job's processes and notes which: one at a time, and never while the ending
     * reads the list. (A kill's own list was once still being noted on the timer's thread
     * when the ending, woken by the leader's death, read it: a leftover went unreported.)
     */
    private void signal(Supplier<List<String>> how) {
        synchronized (signalling) {
            note(how.get());
        }
    }

    private final Object signalling = new Object();

    private void note(List<String> killed) {
        for (String k : killed) {
            // The ending's own kill may describe a process the stop's SIGTERM already ended
            // (no command line left): a description naming the command wins, whichever came first.
            leftovers.merge(Long.parseLong(k.substring(0, k.indexOf(' '))), k,
                    (had, now) -> Containment.namesCommand(had) || !Containment.namesCommand(now) ? had : now);
        }
    }

    @Override
    public void stop() {
        if (process.isAlive() && cause.compareAndSet(null, Ending.Cause.STOP)) {
            lastSignal.set(ProcessLauncher.SIGTERM);
            signal(() -> containment.terminate(code, process.pid()));
            graceTimer = timers.schedule(() -> {
                if (process.isAlive()) {
                    lastSignal.set(ProcessLauncher.SIGKILL);
                }
                signal(() -> containment.killAll(code, process.pid()));
            }, request.limits().stopGrace().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public JobId job() {
        return request.job();
    }

    @Override
    public Mono<Ending> ending() {
        return Mono.fromFuture(ending);
    }

    long pid() {
        return process.pid();
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }
}
