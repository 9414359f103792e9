package sush.pipeline.exec;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import sush.pipeline.disk.DiskReserve;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;

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
    static final Duration DRAIN = Duration.ofSeconds(2);

    private final Path jobsDir;
    final ExecutorService copiers = Executors.newCachedThreadPool(daemon("sush-job-io"));
    /**
     * Each job's wall-time timer (and its grace and drain timers). A timer cancelled when its job
     * ends leaves the queue at once (issue 39's soak: kept until its deadline, each held its job,
     * request and paths, a thousand jobs a minute for the ten minutes of the longest wall time).
     */
    final ScheduledExecutorService timers = timers();
    /** Starts recorded jobs, one after the other, off the caller's thread (the sled's loop). */
    private final ExecutorService starter = Executors.newSingleThreadExecutor(daemon("sush-job-start"));
    final AtomicInteger running = new AtomicInteger();
    private final int maxRunning;
    final Containment containment;
    final DiskReserve disk;

    public ProcessLauncher(Path outputDir) {
        this(outputDir, DiskReserve.NONE);
    }

    /**
     * Jobs whose kept output stops at the reserve of the disk under {@code outputDir} (issue 35):
     * a job that would eat into it stops keeping, is killed, and ends {@code io} with a
     * {@code no-space} reason, leaving the reserve to the journal.
     */
    public ProcessLauncher(Path outputDir, DiskReserve disk) {
        this(outputDir, MAX_RUNNING, Containment.detect(), disk);
    }

    /** With another bound on jobs running at once (tests reach it without 256 processes). */
    ProcessLauncher(Path outputDir, int maxRunning) {
        this(outputDir, maxRunning, Containment.detect());
    }

    /** With a chosen containment (tests run both mechanisms). */
    ProcessLauncher(Path outputDir, int maxRunning, Containment containment) {
        this(outputDir, maxRunning, containment, DiskReserve.NONE);
    }

    private ProcessLauncher(Path outputDir, int maxRunning, Containment containment,
            DiskReserve disk) {
        this.disk = Objects.requireNonNull(disk, "disk");
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
        if (r.mode() != JobMode.RECORDED) {
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
        } catch (RejectedExecutionException e) {
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
        JobFiles files;
        try {
            files = JobFiles.create(jobsDir, dir, r);
        } catch (FileAlreadyExistsException e) {
            running.decrementAndGet();
            // Never overwrite a job's evidence: a directory for this job means it was launched before.
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.IO, "output directory " + dir + " exists"));
        } catch (IOException | RuntimeException e) {
            running.decrementAndGet();
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.IO, "preparing " + dir + ": " + e));
        }
        String code = r.job().codephrase();
        List<String> argv;
        Pty pty = null;
        try {
            if (r.mode() == JobMode.INTERACTIVE) {
                pty = Pty.open(DEFAULT_ROWS, DEFAULT_COLS);
            }
            argv = containment.wrap(code, pty == null ? (SPAWN ? spawned(command(r)) : command(r))
                    : onTerminal(pty.slave(), command(r)));
        } catch (IOException | RuntimeException e) {
            running.decrementAndGet();
            files.closeOutputs();
            if (pty != null) {
                pty.close();
            }
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, (pty == null && r.mode()
                    == JobMode.INTERACTIVE ? "no pseudo-terminal: " : "no container for the job ("
                    + containment.mechanism() + "): ") + e));
        }
        Process p;
        try {
            p = spawn(argv, dir, environment(r, dir, pty != null), pty != null);
        } catch (IOException e) {
            running.decrementAndGet();
            files.closeOutputs();
            containment.release(code);
            if (pty != null) {
                pty.close();
            }
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, "starting bash: " + e.getMessage()));
        }
        LaunchedJob job = new LaunchedJob(this, r, p, files, pty);
        job.begin();
        return job;
    }

    /** The job's environment, and nothing else of the daemon's: {@code TERM} too on a terminal. */
    private static Map<String, String> environment(LaunchRequest r, Path dir, boolean onTerminal) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", PATH);
        env.put("SUSH_JOB_ID", r.job().codephrase());
        env.put("SUSH_COMMAND", r.command());
        env.put("SUSH_JOB_OUTPUT_DIR", dir.toString());
        if (onTerminal) {
            env.put("TERM", "xterm-256color");
        }
        return env;
    }

    /**
     * Starts the job's first process: spawned as a session leader where it can be (D-038), else
     * by the JDK, with stdin from {@code /dev/null} and, on a terminal, no pipes of the daemon's.
     */
    private static Process spawn(List<String> argv, Path dir, Map<String, String> env, boolean onTerminal)
            throws IOException {
        if (!onTerminal && SPAWN) {
            // The job's process leads its own session from its spawn (D-038): no setsid exec.
            return SessionSpawn.start(argv, dir, env, LOOKUP_PATH);
        }
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (onTerminal) {
            // The job's streams are the terminal, opened by its own shell (never by the
            // daemon, which must not take a terminal as its own).
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        }
        pb.environment().clear();
        pb.environment().putAll(env);
        return pb.start();
    }

    /** Whether recorded and streaming jobs are spawned as session leaders here (D-038), not through {@code setsid}. */
    static final boolean SPAWN = SessionSpawn.available();

    /** Where a job's first word is looked up, as the JDK does it: the daemon's own PATH. */
    private static final String LOOKUP_PATH = Optional.ofNullable(System.getenv("PATH")).orElse(PATH);

    /** The command line without its leading {@code setsid}: the spawn makes the session. */
    static List<String> spawned(List<String> command) {
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
    static List<String> onTerminal(String slave, List<String> command) {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c",
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
    public Optional<SessionId> interactiveSession(JobId job) {
        return JobFiles.interactiveSession(jobDir(job));
    }

    /** The output of a running streaming job, until its client took the last byte. */
    public Optional<Outflow> outflow(JobId job) {
        return Optional.ofNullable(outflows.get(job));
    }

    final Map<JobId, Outflow> outflows = new ConcurrentHashMap<>();

    /** The terminal of a running interactive job, while it runs. */
    public Optional<Terminal> terminal(JobId job) {
        return Optional.ofNullable(terminals.get(job));
    }

    final Map<JobId, Terminal> terminals = new ConcurrentHashMap<>();

    /**
     * The job's command line: {@code setsid bash -c COMMAND}, behind {@code prlimit} when the job
     * asked rlimits (D-031). The CPU limit is soft at the asked seconds (SIGXCPU, which ends a
     * process that does not catch it, and is how the ending names the limit) and hard one second
     * later (SIGKILL); address space and file size are exact byte limits.
     */
    static List<String> command(LaunchRequest r) {
        JobLimits j = r.limits().job();
        List<String> argv = new ArrayList<>(List.of("setsid"));
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
        argv.addAll(List.of("bash", "-c", r.command()));
        return argv;
    }

    /** Signals of the rlimits, as a shell reports a process they ended: 128 + the signal. */
    static final int SIGXCPU = 24;
    static final int SIGXFSZ = 25;

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

    private static ScheduledExecutorService timers() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, daemon("sush-job-timer"));
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    private static ThreadFactory daemon(String name) {
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
