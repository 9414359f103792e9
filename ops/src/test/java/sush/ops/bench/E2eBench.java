package sush.ops.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.ops.wire.SignedRequests;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.Ordering;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * End to end on a 4-sled loopback rack of real daemons (separate JVMs): time from `job start` to
 * every sled `Stopped` for `true` (one job at a time, as the CLI does it: the next position, a
 * signed request, the event stream), where that time goes stage by stage (the daemons'
 * {@code --trace} files), jobs per second through one session (jobs flagged concurrent, submitted
 * back to back at the chain's successors), and each daemon's resident memory idle and under that
 * load. Run: {@code ./bench.sh e2e [--quick]}.
 */
public final class E2eBench {
    private E2eBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int jobs = BenchArgs.intOption(args, "--jobs", quick ? 30 : 1000);
        // A sled runs for months: its steady state is a warm JIT. The first jobs of fresh
        // daemons are measured too, apart (what an operator sees right after a reboot).
        int warmup = BenchArgs.intOption(args, "--warmup", quick ? 30 : 4000);
        // Where the sleds keep things (architecture.md): the boundary slots (the M.2s) on this
        // machine's disk, fsynced; the output directories (job outputs, the journal) on a ramdisk,
        // as a sled may have them. With --outputs-on-disk everything is on the disk: its writeback
        // then contends with the slots' fsyncs (every sled here shares one disk).
        boolean outputsOnDisk = Arrays.asList(args).contains("--outputs-on-disk");
        // JVM options for the four daemons only (not this client): --daemon-jvm "-XX:... -XX:...".
        String daemonJvm = BenchArgs.option(args, "--daemon-jvm", "");
        Path slotsDir = Files.createTempDirectory(Path.of("ops", "target"), "bench-e2e-");
        Path dir = outputsOnDisk ? slotsDir : Files.createTempDirectory(Path.of(RAMDISK), "bench-e2e-");
        if (!outputsOnDisk) {
            for (int i = 0; i < 4; i++) {
                Path home = Files.createDirectories(dir.resolve(String.format("sled%02d", i)));
                for (String m2 : List.of("m2-a", "m2-b")) {
                    Files.createSymbolicLink(home.resolve(m2), Files.createDirectories(slotsDir.resolve(String.format(
                            "sled%02d", i)).resolve(m2)).toAbsolutePath());
                }
            }
        }
        // The disk the slots are on, alone: its own stalls bound every store's tail.
        double[] disk = diskAlone(slotsDir, quick ? 3 : 15);
        RackFile rack = RackCommand.create(dir, 4, 27_100, Ordering.CAUSAL);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        List<Process> procs = new ArrayList<>();
        try {
            for (RackFile.SledEntry s : rack.sleds()) {
                procs.add(RackAccess.start(dir, s, daemonJvm.isEmpty() ? List.of() : List.of("env", "JDK_JAVA_OPTIONS="
                        + daemonJvm), List.of("--trace", trace(s).toString())));
            }
            for (RackFile.SledEntry s : rack.sleds()) {
                RackAccess.awaitApi(s.api());
            }
            Client c = RackCommand.operatorClient(dir, "http://" + rack.sleds().get(0).api());
            // Authentication's costs (security.md section 2): a login (challenge, SSH signature,
            // check, gossip), a signed request next to the unsigned challenge round trip.
            int logins = quick ? 10 : 30;
            long l0 = System.nanoTime();
            for (int i = 0; i < logins; i++) {
                c.login();
            }
            double loginMs = (System.nanoTime() - l0) / 1e6 / logins;
            int requests = quick ? 100 : 400;
            HttpClient bare = HttpClient.newHttpClient();
            URI challenge = URI.create("http://" + rack.sleds().get(0).api() + "/login/challenge");
            // Both kinds warmed first (classes loaded, paths compiled): the figures are round trips, not first uses.
            for (int i = 0; i < 20; i++) {
                bare.send(HttpRequest.newBuilder(challenge).POST(HttpRequest.BodyPublishers
                        .noBody()).build(), HttpResponse.BodyHandlers.ofString());
                c.get("/version");
            }
            long r0 = System.nanoTime();
            for (int i = 0; i < requests; i++) {
                bare.send(HttpRequest.newBuilder(challenge).POST(HttpRequest.BodyPublishers
                        .noBody()).build(), HttpResponse.BodyHandlers.ofString());
            }
            double plainMs = (System.nanoTime() - r0) / 1e6 / requests;
            long s0 = System.nanoTime();
            for (int i = 0; i < requests; i++) {
                c.get("/version");
            }
            double signedMs = (System.nanoTime() - s0) / 1e6 / requests;
            Thread.sleep(3000);
            String session = c.post("/sessions/start", Map.of()).get("session_id").asString();
            while (!session.equals(active(c))) {
                Thread.sleep(20);
            }
            Thread.sleep(1000);
            double rssIdle = rssMb(procs);
            // The client follows the event stream, as `sush job start --wait` does.
            StoppedWatch stoppedEverywhere = StoppedWatch.follow(RackCommand.operatorClient(dir, "http://"
                    + rack.sleds().get(0).api()), 4, "e2e");
            Thread.sleep(500);
            long[] latency = new long[jobs];
            long[] cold = new long[warmup];
            double cpuBefore = 0;
            double childrenBefore = 0;
            double jitBefore = 0;
            List<Timed> timed = new ArrayList<>();
            for (int i = -warmup; i < jobs; i++) {
                long t0 = System.nanoTime();
                // As the CLI: the next position from the sled, signed, submitted.
                JsonNode s = c.get("/sessions");
                SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(), "true", "*",
                        false);
                String id = job.request().job().codephrase();
                c.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
                long done = stoppedEverywhere.of(id).get(60, TimeUnit.SECONDS);
                if (i < 0) {
                    cold[i + warmup] = done - t0;
                    if (i == -1) {
                        cpuBefore = cpuSeconds(procs);
                        childrenBefore = childrenCpuSeconds(procs);
                        jitBefore = jitSeconds(procs);
                    }
                    continue;
                }
                latency[i] = done - t0;
                timed.add(new Timed(id, t0, done));
            }
            double cpuPerJobMs = (cpuSeconds(procs) - cpuBefore) / jobs * 1000;
            double childrenPerJobMs = (childrenCpuSeconds(procs) - childrenBefore) / jobs * 1000;
            double jitPerJobMs = (jitSeconds(procs) - jitBefore) / jobs * 1000;
            // Throughput: concurrent jobs back to back, each at the previous one's successor (the
            // client knows the chain), then wait for the last to end everywhere. Twice: the
            // daemons' JIT has only seen jobs one at a time so far, and the first burst is
            // where it compiles the paths of many jobs in flight (a third of the daemons' CPU
            // went to C2 in it); a sled that has run for months has seen bursts before. The
            // first burst is reported apart, like the first jobs of fresh daemons.
            System.err.printf(Locale.ROOT, "e2e: throughput phase, a first burst of %d jobs back to back%n", jobs);
            double[] firstBurst = burst(c, key, procs, stoppedEverywhere, jobs);
            System.err.printf(Locale.ROOT, "e2e: throughput phase, %d jobs back to back (measured)%n", jobs);
            double[] measured = burst(c, key, procs, stoppedEverywhere, jobs);
            double seconds = measured[0];
            double throughputCpuPerJobMs = measured[1];
            double rssLoad = measured[2];
            Arrays.sort(latency);
            long[] first = Arrays.copyOf(cold, Math.min(100, warmup));
            Arrays.sort(first);
            double coldP50 = first.length == 0 ? 0 : first[first.length / 2] / 1e6;
            double coldP99 = first.length == 0 ? 0 : first[Math.min(first.length - 1, (int) (first.length * 0.99))] / 1e6;
            double p50 = latency[jobs / 2] / 1e6;
            double p99 = latency[Math.min(jobs - 1, (int) (jobs * 0.99))] / 1e6;
            System.out.printf(Locale.ROOT, "e2e: 4 daemons on loopback, %d jobs of `true` after %d to warm up; slots on "
                    + "the disk (fsync), output directories on %s%n", jobs, warmup, outputsOnDisk ? "the disk too"
                    : "a ramdisk (" + RAMDISK + ")" + (daemonJvm.isEmpty() ? "" : "; the daemons' JVMs with " + daemonJvm));
            System.out.printf(Locale.ROOT, "job start to every sled stopped: p50 %.1f ms, p99 %.1f ms (the first %d "
                    + "jobs of fresh daemons: p50 %.1f ms, p99 %.1f ms)%n", p50, p99, first.length, coldP50, coldP99);
            System.out.printf(Locale.ROOT, "CPU per job, one at a time: %.1f ms (4 daemons and the jobs' processes, "
                    + "of %d cores); the jobs' processes alone (4 launches): %.1f ms; the daemons' JIT compile "
                    + "time (elapsed on the compiler threads; still warming up when not near 0): %.1f ms%n", cpuPerJobMs,
                    Runtime.getRuntime().availableProcessors(), childrenPerJobMs, jitPerJobMs);
            System.out.printf(Locale.ROOT, "through one session: %.1f jobs/s (each on 4 sleds), %.1f ms of CPU per job "
                    + "(4 daemons and the jobs' processes); the daemons' JIT compile time %.1f ms per job (elapsed "
                    + "on the compiler threads, waits for a core included); the first burst of as many: %.1f jobs/s, "
                    + "%.1f ms of CPU per job, JIT compile time %.1f ms%n", jobs / seconds,
                    throughputCpuPerJobMs, measured[3], jobs / firstBurst[0], firstBurst[1], firstBurst[3]);
            System.out.printf(Locale.ROOT, "resident memory per daemon: idle %.0f MB, under load %.0f MB%n", rssIdle, rssLoad);
            System.out.printf(Locale.ROOT, "operator login: %.2f ms; signed request (GET /version): %.2f ms, next to "
                    + "an unsigned round trip (POST /login/challenge): %.2f ms%n", loginMs, signedMs, plainMs);
            System.out.printf(Locale.ROOT, "the slots' disk alone (one writer of write, fsync, rename, fsync for %.0f "
                    + "s, before the rack started): p50 %.2f ms, p99 %.2f ms, max %.1f ms; %.1f stalls over 100 ms a "
                    + "minute%n", disk[4], disk[0], disk[1], disk[2], disk[3]);
            Map<String, double[]> stages = stages(rack, timed);
            System.out.printf(Locale.ROOT, "where one job's time goes (one job at a time; per job and sled, from the "
                    + "daemons' --trace files):%n%-10s %9s %9s  %s%n", "stage", "p50 ms", "p99 ms", "from -> to");
            for (Map.Entry<String, double[]> e : stages.entrySet()) {
                System.out.printf(Locale.ROOT, "%-10s %9.2f %9.2f  %s%n", e.getKey(), e.getValue()[0], e.getValue()[1],
                        STAGES.get(e.getKey()));
            }
            StringBuilder stageJson = new StringBuilder();
            for (Map.Entry<String, double[]> e : stages.entrySet()) {
                stageJson.append(String.format(Locale.ROOT, ",\"%s_p50_ms\":%.2f,\"%s_p99_ms\":%.2f", e.getKey(),
                        e.getValue()[0], e.getKey(), e.getValue()[1]));
            }
            System.out.printf(Locale.ROOT, "{\"bench\":\"e2e\",\"outputs\":\"" + (outputsOnDisk ? "disk" : "ramdisk") + "\",\"cold_p50_ms\":%.1f,\"cold_p99_ms\":%.1f,"
                    + "\"p50_ms\":%.1f,\"p99_ms\":%.1f,\"cpu_ms_per_job\":%.1f,\"process_cpu_ms_per_job\":%.1f,\"jit_ms_per_job\":%.1f,\"jobs_per_s\":%.1f,\"throughput_cpu_ms_per_job\":%.1f,\"throughput_jit_ms_per_job\":%.1f,\"first_burst_jobs_per_s\":%.1f,\"first_burst_cpu_ms_per_job\":%.1f,\"disk_alone_p99_ms\":%.2f,\"disk_alone_stalls_per_min\":%.1f,"
                    + "\"rss_idle_mb\":%.0f,\"rss_load_mb\":%.0f,\"login_ms\":%.2f,\"signed_request_ms\":%.2f,"
                    + "\"unsigned_request_ms\":%.2f%s}%n", coldP50, coldP99, p50, p99, cpuPerJobMs, childrenPerJobMs, jitPerJobMs, jobs / seconds, throughputCpuPerJobMs, measured[3], jobs / firstBurst[0], firstBurst[1], disk[1], disk[3], rssIdle, rssLoad, loginMs, signedMs,
                    plainMs, stageJson);
        } finally {
            procs.forEach(Process::destroy);
            for (Process p : procs) {
                p.waitFor();
            }
            if (!outputsOnDisk) {
                // The ramdisk is memory: the traces and logs are kept beside the slots, the rest goes.
                for (RackFile.SledEntry s : rack.sleds()) {
                    Path home = s.output().getParent();
                    for (String f : List.of("trace", "daemon.log")) {
                        if (Files.exists(home.resolve(f))) {
                            Files.copy(home.resolve(f), slotsDir.resolve(home.getFileName()).resolve(f));
                        }
                    }
                }
                deleteTree(dir);
                System.out.println("traces and daemon logs: " + slotsDir);
            }
        }
    }

    /**
     * {@code jobs} concurrent jobs submitted back to back through one session, each at its
     * predecessor's successor: seconds until the last is stopped on every sled, the daemons' and
     * their jobs' CPU per job (ms), the daemons' resident memory halfway (MB), and their JIT
     * compilers' time per job (ms).
     */
    private static double[] burst(Client c, SignerKey key, List<Process> procs, StoppedWatch stoppedEverywhere,
            int jobs) throws Exception {
        JsonNode s = c.get("/sessions");
        SessionId sid = SessionId.parse(s.get("session_id").asString());
        JobId next = JobId.parse(s.get("next_job").asString());
        double jitBefore = jitSeconds(procs); // jcmd: before the clock starts
        long t0 = System.nanoTime();
        double cpuBefore = cpuSeconds(procs);
        String last = null;
        double rss = 0;
        for (int i = 0; i < jobs; i++) {
            SignedJob job = Jobs.at(key, sid, next, "true", "*", true);
            last = job.request().job().codephrase();
            c.post("/jobs/" + last + "/start", SignedRequests.toJson(job));
            next = job.request().successor();
            if (i == jobs / 2) {
                rss = rssMb(procs);
            }
        }
        stoppedEverywhere.of(last).get(120, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpuMs = (cpuSeconds(procs) - cpuBefore) / jobs * 1000;
        return new double[] {seconds, cpuMs, rss, (jitSeconds(procs) - jitBefore) / jobs * 1000};
    }

    /**
     * One writer's store of a 4 KiB file (write, fsync, rename, directory fsync) in {@code dir},
     * over and over for {@code seconds}: p50, p99 and max in ms, stalls over 100 ms a minute, and
     * the seconds it ran.
     */
    private static double[] diskAlone(Path dir, int seconds) throws IOException {
        Path probe = Files.createDirectories(dir.resolve("disk-probe"));
        byte[] bytes = new byte[4116];
        List<Long> took = new ArrayList<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            Path temp = probe.resolve("b.tmp");
            try (FileChannel ch = FileChannel.open(temp,
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(ByteBuffer.wrap(bytes));
                ch.force(true);
            }
            Files.move(temp, probe.resolve("b"), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(probe,
                    StandardOpenOption.READ)) {
                d.force(true);
            }
            took.add(System.nanoTime() - t0);
        }
        long[] v = took.stream().mapToLong(Long::longValue).sorted().toArray();
        long stalls = Arrays.stream(v).filter(t -> t > 100_000_000L).count();
        return new double[] {v[v.length / 2] / 1e6, v[Math.min(v.length - 1, (int) (v.length * 0.99))] / 1e6,
                v[v.length - 1] / 1e6, stalls * 60.0 / seconds, seconds};
    }

    /** The ramdisk the sleds' output directories go on (tmpfs). */
    private static final String RAMDISK = "/dev/shm";

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String active(Client c) {
        try {
            return c.get("/sessions").get("session_id").asString();
        } catch (Client.Failure f) {
            return null;
        }
    }

    /** One timed job: when the client began it and when it saw it stopped on every sled. */
    private record Timed(String job, long start, long done) {
    }

    /** The stages of the breakdown, in a job's order, with what each spans. */
    private static final Map<String, String> STAGES = new LinkedHashMap<>();

    static {
        STAGES.put("accept", "client reads the next position, signs, sends -> the request folded on the client's "
                + "sled (checked, gossiped)");
        STAGES.put("deliver", "folded on the client's sled -> folded on another sled (one gossip hop)");
        STAGES.put("screen", "folded -> admission's verdict");
        STAGES.put("commit", "verdict -> boundary record on both slots");
        STAGES.put("spawn", "stored -> launched: handed to the launcher's starting thread");
        STAGES.put("run", "launched -> exited and its pipes drained (`true`): its directory, fork and exec "
                + "included");
        STAGES.put("report", "exited -> its status gossiped");
        STAGES.put("back", "status gossiped -> folded on the client's sled");
        STAGES.put("client", "last status folded on the client's sled -> the client sees every sled stopped");
        STAGES.put("total", "client reads the next position -> client sees every sled stopped");
    }

    private static Path trace(RackFile.SledEntry s) {
        return s.output().getParent().resolve("trace");
    }

    /** p50 and p99 in ms of each stage over every (job, sled) of {@code timed}, from the daemons' trace files. */
    private static Map<String, double[]> stages(RackFile rack, List<Timed> timed) throws Exception {
        Map<String, Long> at = new HashMap<>();
        String client = rack.sleds().get(0).baseboard();
        for (RackFile.SledEntry s : rack.sleds()) {
            for (String line : Files.readAllLines(trace(s))) {
                String[] f = line.split(" ");
                // requested/screened/... job me; seen job other (as folded on this sled)
                String key = f[1].equals("seen") ? "seen " + f[2] + " " + f[3] + " @" + s.baseboard()
                        : f[1] + " " + f[2] + " " + f[3];
                at.putIfAbsent(key, Long.parseLong(f[0]));
            }
        }
        Map<String, List<Long>> spans = new LinkedHashMap<>();
        STAGES.keySet().forEach(k -> spans.put(k, new ArrayList<>()));
        for (Timed t : timed) {
            Long accepted = at.get("requested " + t.job() + " " + client);
            if (accepted == null) {
                throw new IllegalStateException("the trace misses the request of " + t.job() + " on " + client);
            }
            spans.get("accept").add(accepted - t.start());
            spans.get("total").add(t.done() - t.start());
            long lastSeen = Long.MIN_VALUE;
            for (RackFile.SledEntry s : rack.sleds()) {
                String b = s.baseboard();
                Long requested = at.get("requested " + t.job() + " " + b);
                Long screened = at.get("screened " + t.job() + " " + b);
                Long committed = at.get("committed " + t.job() + " " + b);
                Long launched = at.get("launched " + t.job() + " " + b);
                Long ended = at.get("ended " + t.job() + " " + b);
                Long reported = at.get("reported " + t.job() + " " + b);
                Long seen = at.get("seen " + t.job() + " " + b + " @" + client);
                if (requested == null || screened == null || committed == null || launched == null || ended == null
                        || reported == null || seen == null) {
                    throw new IllegalStateException("the trace misses a stage of " + t.job() + " on " + b);
                }
                if (!b.equals(client)) {
                    spans.get("deliver").add(requested - accepted);
                }
                spans.get("screen").add(screened - requested);
                spans.get("commit").add(committed - screened);
                spans.get("spawn").add(launched - committed);
                spans.get("run").add(ended - launched);
                spans.get("report").add(reported - ended);
                spans.get("back").add(seen - reported);
                lastSeen = Math.max(lastSeen, seen);
            }
            spans.get("client").add(t.done() - lastSeen);
        }
        Map<String, double[]> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<Long>> e : spans.entrySet()) {
            long[] v = e.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
            out.put(e.getKey(), new double[] {v[v.length / 2] / 1e6, v[Math.min(v.length - 1, (int) (v.length * 0.99))]
                    / 1e6});
        }
        return out;
    }

    /** CPU seconds the daemons and their reaped children (the jobs) used so far, from /proc. */
    /** Seconds the daemons' JIT compilers have spent compiling (jcmd PerfCounter.print: sun.ci.totalTime). */
    private static double jitSeconds(List<Process> procs) throws Exception {
        double total = 0;
        for (Process p : procs) {
            Process j = new ProcessBuilder("jcmd", Long.toString(p.pid()), "PerfCounter.print").redirectErrorStream(true)
                    .start();
            String out = new String(j.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            j.waitFor();
            double ticks = 0;
            double hz = 0;
            for (String line : out.split("\n")) {
                if (line.startsWith("sun.ci.totalTime=") || line.startsWith("java.ci.totalTime=")) {
                    ticks = Double.parseDouble(line.substring(line.indexOf('=') + 1).trim());
                } else if (line.startsWith("sun.os.hrt.frequency=")) {
                    hz = Double.parseDouble(line.substring(line.indexOf('=') + 1).trim());
                }
            }
            total += hz > 0 ? ticks / hz : 0;
        }
        return total;
    }

    /** The CPU of the daemons' reaped children alone (the jobs' processes): cutime and cstime. */
    private static double childrenCpuSeconds(List<Process> procs) throws Exception {
        double ticks = 0;
        for (Process p : procs) {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]);
        }
        return ticks / 100.0;
    }

    private static double cpuSeconds(List<Process> procs) throws Exception {
        double ticks = 0;
        for (Process p : procs) {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // utime, stime, cutime, cstime: fields 14-17 of stat(5), 12-15 after the command name
            for (int i = 11; i <= 14; i++) {
                ticks += Long.parseLong(f[i]);
            }
        }
        return ticks / 100.0;
    }

    /** Mean resident set of the daemons, from /proc. */
    private static double rssMb(List<Process> procs) throws Exception {
        double total = 0;
        for (Process p : procs) {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    total += Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        }
        return total / procs.size();
    }
}
