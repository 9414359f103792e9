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
 * Runs each job as {@code bash -c CMD} in its own session and process group, with a cleared
 * environment (a fixed {@code PATH}, {@code SUSH_JOB_ID}, {@code SUSH_COMMAND},
 * {@code SUSH_JOB_OUTPUT_DIR}), stdin from {@code /dev/null}, and its output copied into
 * {@code <output>/jobs/<jobId>/} (directory 0700, files 0600, {@code job.json} written before the
 * spawn) while being counted and hashed. Its own threads drain the streams, so a flooding job
 * never blocks the sled. Limits and stops signal the whole group.
 */
public final class ProcessLauncher implements Launcher, AutoCloseable {
    public static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** Bound on jobs running at once on one sled; past it a launch fails instead of queueing. */
    public static final int MAX_RUNNING = 256;
    static final int SIGTERM = 15;
    static final int SIGKILL = 9;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path jobsDir;
    private final ExecutorService copiers = Executors.newCachedThreadPool(daemon("sush-job-io"));
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(daemon("sush-job-timer"));
    private final AtomicInteger running = new AtomicInteger();
    private final int maxRunning;

    public ProcessLauncher(Path outputDir) {
        this(outputDir, MAX_RUNNING);
    }

    /** With another bound on jobs running at once (tests reach it without 256 processes). */
    ProcessLauncher(Path outputDir, int maxRunning) {
        this.jobsDir = outputDir.resolve("jobs");
        this.maxRunning = maxRunning;
    }

    /** Where a job's files live. */
    public Path jobDir(JobId job) {
        return jobsDir.resolve(job.codephrase());
    }

    @Override
    public Running launch(LaunchRequest r) {
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
        ProcessBuilder pb = new ProcessBuilder("setsid", "bash", "-c", r.command()).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", PATH);
        env.put("SUSH_JOB_ID", r.job().codephrase());
        env.put("SUSH_COMMAND", r.command());
        env.put("SUSH_JOB_OUTPUT_DIR", dir.toString());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            running.decrementAndGet();
            closeQuietly(out);
            closeQuietly(err);
            return failed(r.job(), new Ending.Failed(Ending.Failed.Kind.SPAWN, "starting bash: " + e.getMessage()));
        }
        Job job = new Job(r, p, out, err);
        job.begin();
        return job;
    }

    private static Map<String, Object> describe(LaunchRequest r, Path dir) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", r.job().codephrase());
        m.put("session", r.session().codephrase());
        m.put("command", r.command());
        m.put("target", r.target());
        m.put("output_dir", dir.toString());
        m.put("wall_time_ms", r.limits().wallTime().toMillis());
        m.put("output_limit_bytes", r.limits().outputBytes());
        return m;
    }

    /** A launched process and the threads and timers around it. */
    private final class Job implements Running {
        private final LaunchRequest request;
        private final Process process;
        private final FileChannel out;
        private final FileChannel err;
        private final AtomicLong written = new AtomicLong();
        private final AtomicReference<Ending.Cause> cause = new AtomicReference<>();
        private final AtomicInteger lastSignal = new AtomicInteger();
        private final CompletableFuture<Ending> ending = new CompletableFuture<>();
        private volatile ScheduledFuture<?> wallTimer;
        private volatile ScheduledFuture<?> graceTimer;

        Job(LaunchRequest request, Process process, FileChannel out, FileChannel err) {
            this.request = request;
            this.process = process;
            this.out = out;
            this.err = err;
        }

        void begin() {
            CompletableFuture<Stream> o = CompletableFuture.supplyAsync(() -> copy(process.getInputStream(), out), copiers);
            CompletableFuture<Stream> e = CompletableFuture.supplyAsync(() -> copy(process.getErrorStream(), err), copiers);
            wallTimer = timers.schedule(() -> kill(Ending.Cause.WALL_TIME, SIGKILL),
                    request.limits().wallTime().toMillis(), TimeUnit.MILLISECONDS);
            process.onExit().thenRun(() -> {
                // The job is bash's lifetime: what it left running in its group goes with it,
                // which also closes the pipes those leftovers held open.
                signalGroup(SIGKILL);
            });
            CompletableFuture.allOf(o, e, process.onExit()).whenComplete((v, t) -> finish(o.join(), e.join()));
        }

        private void finish(Stream o, Stream e) {
            cancel(wallTimer);
            cancel(graceTimer);
            running.decrementAndGet();
            if (o.error != null || e.error != null) {
                ending.complete(new Ending.Failed(Ending.Failed.Kind.IO, "keeping output: "
                        + (o.error != null ? o.error : e.error)));
                return;
            }
            Output output = new Output(o.bytes, o.sha3, e.bytes, e.sha3);
            Ending.Cause c = cause.get();
            ending.complete(c == null ? new Ending.Exited(process.exitValue(), output)
                    : new Ending.Killed(lastSignal.get(), c, output));
        }

        /** Copies one stream to its file within the shared output limit; drains past it. */
        private Stream copy(InputStream in, FileChannel file) {
            Stream s = new Stream();
            MessageDigest d = Hashes.sha3();
            byte[] buf = new byte[64 * 1024];
            try (in; file) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    long before = written.getAndAdd(n);
                    long room = Math.max(0, request.limits().outputBytes() - before);
                    int keep = (int) Math.min(n, room);
                    if (keep > 0 && s.error == null) {
                        try {
                            ByteBuffer b = ByteBuffer.wrap(buf, 0, keep);
                            while (b.hasRemaining()) {
                                file.write(b);
                            }
                            d.update(buf, 0, keep);
                            s.bytes += keep;
                        } catch (IOException ioe) {
                            // A full output disk: stop keeping, keep draining so the job never blocks.
                            s.error = ioe.toString();
                            kill(Ending.Cause.OUTPUT_LIMIT, SIGKILL);
                        }
                    }
                    if (keep < n) {
                        kill(Ending.Cause.OUTPUT_LIMIT, SIGKILL);
                    }
                }
            } catch (IOException ioe) {
                // The pipe broke because the group was killed: what was read is kept.
            }
            s.sha3 = d.digest();
            return s;
        }

        private void kill(Ending.Cause why, int signal) {
            cause.compareAndSet(null, why);
            lastSignal.set(signal);
            signalGroup(signal);
        }

        @Override
        public void stop() {
            if (process.isAlive() && cause.compareAndSet(null, Ending.Cause.STOP)) {
                lastSignal.set(SIGTERM);
                signalGroup(SIGTERM);
                graceTimer = timers.schedule(() -> {
                    if (process.isAlive()) {
                        lastSignal.set(SIGKILL);
                        signalGroup(SIGKILL);
                    }
                }, request.limits().stopGrace().toMillis(), TimeUnit.MILLISECONDS);
            }
        }

        /** Signals every process of the job's group (setsid made bash the group's leader). */
        private void signalGroup(int signal) {
            try {
                Process k = new ProcessBuilder("kill", "-s", signal == SIGKILL ? "KILL" : "TERM", "--",
                        "-" + process.pid()).redirectErrorStream(true).start();
                k.getInputStream().readAllBytes();
                k.waitFor(5, TimeUnit.SECONDS);
            } catch (IOException e) {
                // No kill(1): fall back to the processes Java can see.
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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

    /** What one copier saw. */
    private static final class Stream {
        long bytes;
        byte[] sha3;
        String error;
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
        timers.shutdownNow();
        copiers.shutdownNow();
    }
}
