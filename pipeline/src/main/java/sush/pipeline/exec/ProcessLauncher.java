package sush.pipeline.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import reactor.core.publisher.Mono;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs each job as {@code bash -c CMD} in its own session, process group and container
 * ({@link Containment}: a cgroup v2 per job where the host allows it), with a cleared
 * environment (a fixed {@code PATH}, {@code SUSH_JOB_ID}, {@code SUSH_COMMAND},
 * {@code SUSH_JOB_OUTPUT_DIR}), stdin from {@code /dev/null}, and its output copied into
 * {@code <output>/jobs/<jobId>/} (directory 0700, files 0600, {@code job.json} written before the
 * spawn) while being counted and hashed. Its own threads drain the streams, so a flooding job
 * never blocks the sled. Limits and stops kill the whole container; the job ends when its
 * first process exits: whatever it left running is killed and reported, and its pipes are
 * drained for at most {@link #DRAIN}.
 */
public final class ProcessLauncher implements Launcher, AutoCloseable {
    public static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** Bound on jobs running at once on one sled; past it a launch fails instead of queueing. */
    public static final int MAX_RUNNING = 256;
    static final int SIGTERM = 15;
    static final int SIGKILL = 9;
    /** How long a job's pipes are still read after its first process exited and the rest was killed. */
    static final java.time.Duration DRAIN = java.time.Duration.ofSeconds(2);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Each copier thread's buffer, reused job after job (a fresh 64 KiB per stream per job was garbage). */
    static final int COPY_BUFFER_BYTES = 64 * 1024;
    private static final ThreadLocal<byte[]> COPY_BUFFER = ThreadLocal.withInitial(() -> new byte[COPY_BUFFER_BYTES]);

    private final Path jobsDir;
    private final ExecutorService copiers = Executors.newCachedThreadPool(daemon("sush-job-io"));
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(daemon("sush-job-timer"));
    /** Starts recorded jobs, one after the other, off the caller's thread (the sled's loop). */
    private final ExecutorService starter = Executors.newSingleThreadExecutor(daemon("sush-job-start"));
    private final AtomicInteger running = new AtomicInteger();
    private final int maxRunning;
    private final Containment containment;
    private final sush.pipeline.disk.DiskReserve disk;

    public ProcessLauncher(Path outputDir) {
        this(outputDir, sush.pipeline.disk.DiskReserve.NONE);
    }

    /**
     * Jobs whose kept output stops at the reserve of the disk under {@code outputDir} (issue 35):
     * a job that would eat into it stops keeping, is killed, and ends {@code io} with a
     * {@code no-space} reason, leaving the reserve to the journal.
     */
    public ProcessLauncher(Path outputDir, sush.pipeline.disk.DiskReserve disk) {
        this(outputDir, MAX_RUNNING, Containment.detect(), disk);
    }

    /** With another bound on jobs running at once (tests reach it without 256 processes). */
    ProcessLauncher(Path outputDir, int maxRunning) {
        this(outputDir, maxRunning, Containment.detect());
    }

    /** With a chosen containment (tests run both mechanisms). */
    ProcessLauncher(Path outputDir, int maxRunning, Containment containment) {
        this(outputDir, maxRunning, containment, sush.pipeline.disk.DiskReserve.NONE);
    }

    private ProcessLauncher(Path outputDir, int maxRunning, Containment containment,
            sush.pipeline.disk.DiskReserve disk) {
        this.disk = java.util.Objects.requireNonNull(disk, "disk");
        this.jobsDir = outputDir.resolve("jobs");
        this.maxRunning = maxRunning;
        this.containment = containment;
    }

    /** How jobs are contained here ({@link Containment#mechanism()}). */
    public String containment() {
        return containment.mechanism();
    }

    /** Where a job's files live. */
    public Path jobDir(JobId job) {
        return jobsDir.resolve(job.codephrase());
    }

    /**
     * Hands the job to the launcher's one starting thread and returns at once, as the interface
     * promises: preparing its directory and the fork and exec never hold the sled's loop (issue
     * 17). Jobs start in the order they were handed over. An interactive or streaming job starts
     * before this returns: its terminal or outflow is there for the client that attaches.
     */
    @Override
    public Running launch(LaunchRequest r) {
        if (r.mode() != sush.projections.job.JobMode.RECORDED) {
            return start(r);
        }
        Deferred d = new Deferred(r.job());
        try {
            starter.execute(() -> {
                Running started;
                try {
                    started = start(r);
                } catch (RuntimeException | Error e) {
                    started = failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, "starting the job: " + e));
                }
                d.become(started);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, "the launcher is closed"));
        }
        return d;
    }

    /** Runs {@code task} on the starting thread, after the launches handed over before it (tests hold it). */
    void onStartingThread(Runnable task) {
        starter.execute(task);
    }

    /** A job handed to the starting thread; a stop asked before it started reaches it once it has. */
    private static final class Deferred implements Running {
        private final JobId job;
        private final CompletableFuture<Running> started = new CompletableFuture<>();
        private volatile boolean stopAsked;

        Deferred(JobId job) {
            this.job = job;
        }

        void become(Running r) {
            started.complete(r);
            if (stopAsked) {
                r.stop();
            }
        }

        @Override
        public JobId job() {
            return job;
        }

        @Override
        public Mono<Ending> ending() {
            return Mono.fromFuture(started, true).flatMap(Running::ending);
        }

        @Override
        public void stop() {
            stopAsked = true;
            Running r = started.getNow(null);
            if (r != null) {
                r.stop();
            }
        }
    }

    /** Prepares the job's directory and starts its process, on the calling thread. */
    private Running start(LaunchRequest r) {
        if (running.incrementAndGet() > maxRunning) {
            running.decrementAndGet();
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, maxRunning + " jobs already running"));
        }
        Path dir = jobDir(r.job());
        FileChannel out;
        FileChannel err;
        try {
            Files.createDirectories(jobsDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            writeOwnerOnly(dir.resolve("job.json"), JSON.writeValueAsBytes(describe(r, dir)));
            if (r.mode() == sush.projections.job.JobMode.STREAMING) {
                writeOwnerOnly(dir.resolve(STREAMED), "its stdout went to its client; it is not kept here\n"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            out = openOwnerOnly(dir.resolve("stdout"));
            err = openOwnerOnly(dir.resolve("stderr"));
        } catch (FileAlreadyExistsException e) {
            running.decrementAndGet();
            // Never overwrite a job's evidence: a directory for this job means it was launched before.
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.IO, "output directory " + dir + " exists"));
        } catch (IOException | RuntimeException e) {
            running.decrementAndGet();
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.IO, "preparing " + dir + ": " + e));
        }
        String code = r.job().codephrase();
        java.util.List<String> argv;
        Pty pty = null;
        try {
            if (r.mode() == sush.projections.job.JobMode.INTERACTIVE) {
                pty = Pty.open(DEFAULT_ROWS, DEFAULT_COLS);
            }
            argv = containment.wrap(code, pty == null ? (SPAWN ? spawned(command(r)) : command(r))
                    : onTerminal(pty.slave(), command(r)));
        } catch (IOException | RuntimeException e) {
            running.decrementAndGet();
            closeQuietly(out);
            closeQuietly(err);
            if (pty != null) {
                pty.close();
            }
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, (pty == null && r.mode()
                    == sush.projections.job.JobMode.INTERACTIVE ? "no pseudo-terminal: " : "no container for the job ("
                    + containment.mechanism() + "): ") + e));
        }
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put("PATH", PATH);
        env.put("SUSH_JOB_ID", r.job().codephrase());
        env.put("SUSH_COMMAND", r.command());
        env.put("SUSH_JOB_OUTPUT_DIR", dir.toString());
        if (pty != null) {
            env.put("TERM", "xterm-256color");
        }
        Process p;
        try {
            if (pty == null && SPAWN) {
                // The job's process leads its own session from its spawn (D-038): no setsid exec.
                p = SessionSpawn.start(argv, dir, env, LOOKUP_PATH);
            } else {
                ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                if (pty != null) {
                    // The job's streams are the terminal, opened by its own shell (never by the
                    // daemon, which must not take a terminal as its own).
                    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
                }
                pb.environment().clear();
                pb.environment().putAll(env);
                p = pb.start();
            }
        } catch (IOException e) {
            running.decrementAndGet();
            closeQuietly(out);
            closeQuietly(err);
            containment.release(code);
            if (pty != null) {
                pty.close();
            }
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, "starting bash: " + e.getMessage()));
        }
        Job job = new Job(r, p, out, err, dir, pty);
        job.begin();
        return job;
    }

    /** Whether recorded and streaming jobs are spawned as session leaders here (D-038), not through {@code setsid}. */
    static final boolean SPAWN = SessionSpawn.available();

    /** Where a job's first word is looked up, as the JDK does it: the daemon's own PATH. */
    private static final String LOOKUP_PATH = java.util.Optional.ofNullable(System.getenv("PATH")).orElse(PATH);

    /** The command line without its leading {@code setsid}: the spawn makes the session. */
    static java.util.List<String> spawned(java.util.List<String> command) {
        if (command.isEmpty() || !command.get(0).equals("setsid")) {
            throw new IllegalArgumentException("a job's command line starts with setsid: " + command);
        }
        return command.subList(1, command.size());
    }

    /** How a job's first process gets its own session here: for the daemon's first log lines. */
    public static String sessions() {
        return SPAWN ? "posix_spawn (POSIX_SPAWN_SETSID)" : "setsid (" + SessionSpawn.unavailable().orElse("") + ")";
    }

    /** An interactive job's window until a client says its own. */
    public static final int DEFAULT_ROWS = 24;
    public static final int DEFAULT_COLS = 80;

    /**
     * An interactive job's command line: its shell opens the terminal's slave as stdin, stdout
     * and stderr, and {@code setsid --ctty} makes it the new session's controlling terminal.
     */
    static java.util.List<String> onTerminal(String slave, java.util.List<String> command) {
        java.util.List<String> argv = new java.util.ArrayList<>(java.util.List.of("/bin/sh", "-c",
                "exec \"$@\" <\"$0\" >\"$0\" 2>&1", slave));
        argv.add(command.get(0)); // setsid
        argv.add("--ctty");
        argv.addAll(command.subList(1, command.size()));
        return argv;
    }

    /** In a streaming job's directory: its stdout was not kept. */
    public static final String STREAMED = "streamed";

    /** Whether the job's stdout went to a streaming client instead of this sled's disk. */
    public boolean streamed(JobId job) {
        return Files.exists(jobDir(job).resolve(STREAMED));
    }

    /**
     * The session of an interactive job this launcher started, read from its {@code job.json}
     * (kept with its transcript, whatever the fold forgets); empty for any other job.
     */
    public java.util.Optional<sush.projections.id.SessionId> interactiveSession(JobId job) {
        try {
            tools.jackson.databind.JsonNode d = JSON.readTree(Files.readAllBytes(jobDir(job).resolve("job.json")));
            if (!sush.projections.job.JobMode.INTERACTIVE.wire().equals(d.path("mode").asString(""))) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(sush.projections.id.SessionId.parse(d.path("session").asString("")));
        } catch (IOException | RuntimeException | sush.projections.id.IdException e) {
            return java.util.Optional.empty();
        }
    }

    /** The output of a running streaming job, until its client took the last byte. */
    public java.util.Optional<Outflow> outflow(JobId job) {
        return java.util.Optional.ofNullable(outflows.get(job));
    }

    private final Map<JobId, Outflow> outflows = new java.util.concurrent.ConcurrentHashMap<>();

    /** The terminal of a running interactive job, while it runs. */
    public java.util.Optional<Terminal> terminal(JobId job) {
        return java.util.Optional.ofNullable(terminals.get(job));
    }

    private final Map<JobId, Terminal> terminals = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The job's command line: {@code setsid bash -c COMMAND}, behind {@code prlimit} when the job
     * asked rlimits (D-031). The CPU limit is soft at the asked seconds (SIGXCPU, which ends a
     * process that does not catch it, and is how the ending names the limit) and hard one second
     * later (SIGKILL); address space and file size are exact byte limits.
     */
    static java.util.List<String> command(LaunchRequest r) {
        sush.projections.job.JobLimits j = r.limits().job();
        java.util.List<String> argv = new java.util.ArrayList<>(java.util.List.of("setsid"));
        if (j.cpuSeconds() > 0 || j.addressSpaceBytes() > 0 || j.fileSizeBytes() > 0) {
            argv.add("prlimit");
            if (j.cpuSeconds() > 0) {
                argv.add("--cpu=" + j.cpuSeconds() + ":" + (j.cpuSeconds() + 1));
            }
            if (j.addressSpaceBytes() > 0) {
                argv.add("--as=" + j.addressSpaceBytes());
            }
            if (j.fileSizeBytes() > 0) {
                argv.add("--fsize=" + j.fileSizeBytes());
            }
            argv.add("--");
        }
        argv.addAll(java.util.List.of("bash", "-c", r.command()));
        return argv;
    }

    /** Signals of the rlimits, as a shell reports a process they ended: 128 + the signal. */
    static final int SIGXCPU = 24;
    static final int SIGXFSZ = 25;

    private static Map<String, Object> describe(LaunchRequest r, Path dir) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", r.job().codephrase());
        m.put("session", r.session().codephrase());
        m.put("command", r.command());
        m.put("target", r.target());
        m.put("output_dir", dir.toString());
        m.put("wall_time_ms", r.limits().wallTime().toMillis());
        m.put("output_limit_bytes", r.limits().outputBytes());
        m.put("mode", r.mode().wire());
        sush.projections.job.JobLimits j = r.limits().job();
        if (!j.isNone()) {
            m.put("asked_limits", Map.of("wall_time_ms", j.wallTimeMs(), "output_bytes_per_stream", j.outputBytes(),
                    "cpu_seconds", j.cpuSeconds(), "address_space_bytes", j.addressSpaceBytes(), "file_size_bytes",
                    j.fileSizeBytes()));
        }
        return m;
    }

    /** A launched process and the threads and timers around it. */
    private final class Job implements Running {
        private final LaunchRequest request;
        private final Process process;
        private final FileChannel out;
        private final FileChannel err;
        private final Path dir;
        private final String code;
        private final AtomicLong written = new AtomicLong();
        private final AtomicReference<Ending.Cause> cause = new AtomicReference<>();
        private final AtomicInteger lastSignal = new AtomicInteger();
        private final CompletableFuture<Ending> ending = new CompletableFuture<>();
        /** The job's other processes that were signalled to end, by pid: {@code pid command-line}. */
        private final Map<Long, String> leftovers = new java.util.concurrent.ConcurrentSkipListMap<>();
        private final Stream stdout = new Stream();
        private final Stream stderr = new Stream();
        private volatile ScheduledFuture<?> wallTimer;
        private volatile ScheduledFuture<?> graceTimer;

        Job(LaunchRequest request, Process process, FileChannel out, FileChannel err, Path dir, Pty pty) {
            this.request = request;
            this.process = process;
            this.out = out;
            this.err = err;
            this.dir = dir;
            this.code = request.job().codephrase();
            this.pty = pty;
            this.terminal = pty == null ? null : new Terminal(request.job(), pty);
            this.outflow = request.mode() == sush.projections.job.JobMode.STREAMING
                    ? new Outflow(request.job(), () -> kill(Ending.Cause.CLIENT_GONE)) : null;
        }

        private final Pty pty;
        private final Terminal terminal;
        private final Outflow outflow;

        /** A streaming job's stdout to its client: hashed and counted like a kept stream, within its limits. */
        private void stream(InputStream in, Outflow flow, Stream s) {
            byte[] buf = COPY_BUFFER.get();
            long perStream = request.limits().streamBytes();
            long sent = 0;
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    int keep = (int) Math.min(n, Math.max(0, perStream - sent));
                    if (keep > 0 && !flow.isGone()) {
                        s.count(buf, keep);
                        flow.put(buf, keep);
                        sent += keep;
                    }
                    if (keep < n) {
                        kill(Ending.Cause.OUTPUT_LIMIT);
                    }
                }
            } catch (IOException ioe) {
                // The pipe broke because the job was killed: what was sent is counted.
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return;
            }
            try {
                // The client always learns where the output ends (it waits for nothing after it);
                // with no client, this waits until one comes or the output is abandoned.
                flow.end();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }

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
                        copy(pty.output(), out, stdout, terminal);
                    } finally {
                        terminal.end();
                        terminals.remove(request.job());
                        pty.close();
                    }
                }, copiers);
                closeQuietly(err);
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
                o = CompletableFuture.runAsync(() -> stream(process.getInputStream(), outflow, stdout), copiers);
                closeQuietly(out);
                e = CompletableFuture.runAsync(() -> copy(process.getErrorStream(), err, stderr, null), copiers);
            } else {
                o = CompletableFuture.runAsync(() -> copy(process.getInputStream(), out, stdout, null), copiers);
                e = CompletableFuture.runAsync(() -> copy(process.getErrorStream(), err, stderr, null), copiers);
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
                    ScheduledFuture<?> cut = timers.schedule(() -> drained.complete(null), DRAIN.toMillis(),
                            TimeUnit.MILLISECONDS);
                    drained.whenComplete((v, t) -> cut.cancel(false));
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
            Snapshot so = stdout.close();
            Snapshot se = stderr.close();
            containment.release(code);
            running.decrementAndGet();
            java.util.List<String> killed;
            synchronized (signalling) {
                killed = java.util.List.copyOf(leftovers.values());
            }
            if (!killed.isEmpty()) {
                try {
                    writeOwnerOnly(dir.resolve("leftovers"), (String.join("\n", killed) + "\n")
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                } catch (IOException ioe) {
                    // The list is also in the ending; the file is a convenience.
                }
            }
            Output output = new Output(so.bytes, so.sha3, se.bytes, se.sha3);
            Ending.Cause c = cause.get();
            if (c == null && !process.isAlive()) {
                c = rlimitCause(process.exitValue());
            }
            Ending end = so.error != null || se.error != null ? new Ending.Failed(Ending.Failed.Kind.IO, "keeping output: "
                    + (so.error != null ? so.error : se.error))
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
            sush.projections.job.JobLimits j = request.limits().job();
            if (j.cpuSeconds() > 0 && exit == 128 + SIGXCPU) {
                return Ending.Cause.CPU_LIMIT;
            }
            if (j.fileSizeBytes() > 0 && exit == 128 + SIGXFSZ) {
                return Ending.Cause.FILE_SIZE_LIMIT;
            }
            return null;
        }

        /**
         * Copies one stream to its file within the shared output limit and the stream's own
         * (what the job asked); drains past them.
         */
        private void copy(InputStream in, FileChannel file, Stream s, Terminal shown) {
            byte[] buf = COPY_BUFFER.get();
            long perStream = request.limits().streamBytes();
            long mine = 0;
            try (in; file) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    long before = written.getAndAdd(n);
                    long room = Math.max(0, Math.min(request.limits().outputBytes() - before, perStream - mine));
                    mine += n;
                    if (shown != null) {
                        shown.shown(buf, n);
                    }
                    int keep = (int) Math.min(n, room);
                    if (keep > 0 && !disk.outputRoom(keep)) {
                        s.refuse(disk.shortage().orElse("no-space: the output would eat into the " + disk));
                    }
                    if (keep > 0 && !s.keep(file, buf, keep)) {
                        // A full output disk: stop keeping, keep draining so the job never blocks.
                        kill(Ending.Cause.OUTPUT_LIMIT);
                    }
                    if (keep < n) {
                        kill(Ending.Cause.OUTPUT_LIMIT);
                    }
                }
            } catch (IOException ioe) {
                // The pipe broke because the job was killed: what was read is kept.
            }
        }

        private void kill(Ending.Cause why) {
            cause.compareAndSet(null, why);
            lastSignal.set(SIGKILL);
            signal(() -> containment.killAll(code, process.pid()));
        }

        /**
         * Signals the job's processes and notes which: one at a time, and never while the ending
         * reads the list. (A kill's own list was once still being noted on the timer's thread
         * when the ending, woken by the leader's death, read it: a leftover went unreported.)
         */
        private void signal(java.util.function.Supplier<java.util.List<String>> how) {
            synchronized (signalling) {
                note(how.get());
            }
        }

        private final Object signalling = new Object();

        private void note(java.util.List<String> killed) {
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
                lastSignal.set(SIGTERM);
                signal(() -> containment.terminate(code, process.pid()));
                graceTimer = timers.schedule(() -> {
                    if (process.isAlive()) {
                        lastSignal.set(SIGKILL);
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
    }

    /** What one copier kept; closed once the job ends, after which nothing more is kept. */
    private static final class Stream {
        private final MessageDigest digest = Hashes.sha3();
        private long bytes;
        private String error;
        private boolean closed;

        /** Keeps nothing more, for {@code why} (a full disk): as a failed write, unless one failed already. */
        synchronized void refuse(String why) {
            if (error == null) {
                error = why;
            }
        }

        /** Writes and hashes {@code n} bytes unless closed; false once writing failed. */
        synchronized boolean keep(FileChannel file, byte[] buf, int n) {
            if (closed || error != null) {
                return error == null;
            }
            try {
                ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
                while (b.hasRemaining()) {
                    file.write(b);
                }
                digest.update(buf, 0, n);
                bytes += n;
                return true;
            } catch (IOException ioe) {
                error = ioe.toString();
                return false;
            }
        }

        /** Hashes and counts {@code n} bytes that are not kept here (a streamed output). */
        synchronized void count(byte[] buf, int n) {
            if (!closed) {
                digest.update(buf, 0, n);
                bytes += n;
            }
        }

        synchronized Snapshot close() {
            closed = true;
            return new Snapshot(bytes, digest.digest(), error);
        }
    }

    private record Snapshot(long bytes, byte[] sha3, String error) {
    }

    private static Running failed(JobId job, Ending.Failed f) {
        return new Running() {
            @Override
            public JobId job() {
                return job;
            }

            @Override
            public Mono<Ending> ending() {
                return Mono.just(f);
            }

            @Override
            public void stop() {
                // Nothing runs.
            }
        };
    }

    private static void writeOwnerOnly(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = openOwnerOnly(file)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }
    }

    private static FileChannel openOwnerOnly(Path file) throws IOException {
        return FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }

    private static void closeQuietly(FileChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // Closing an unused file fails only if the disk is gone; the launch already failed.
        }
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void close() {
        starter.shutdownNow();
        timers.shutdownNow();
        copiers.shutdownNow();
        if (containment instanceof Containment.Cgroup) {
            ((Containment.Cgroup) containment).close();
        }
    }
}
