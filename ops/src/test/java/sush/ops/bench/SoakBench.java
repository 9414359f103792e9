package sush.ops.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.ops.wire.SignedRequests;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.Ordering;
import sush.projections.id.KeyId;
import sush.projections.job.Grant;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * The soak (issue 16): a 4-sled signed rack of real daemons (separate JVMs, the rack's own
 * launcher) runs N jobs of {@code true} on every sled, in sessions of 100 jobs each granted by
 * the signer, with a window of jobs in flight. Every 1,000 jobs it prints, per daemon on average:
 * heap after a full collection ({@code jcmd GC.run}, then the JVM's own heap gauge from
 * {@code /metrics}), resident memory, messages held in the gossip set, journal bytes, output
 * bytes on disk ({@code du}), and the p50/p99 of the last 1,000 jobs' round trips (request accepted to every
 * sled stopped, seen on the rack's event stream). It ends with the classes whose instances grew
 * most on one daemon between the first 1,000 jobs and the end (what the growth per job is made
 * of) and one JSON line.
 *
 * <p>Every daemon forgets what the rack settled (issue 39, on by default since D-057); with
 * {@code --no-forgetting} every daemon runs {@code sush daemon --no-forgetting} instead. The JSON
 * line carries the largest set of any daemon over the run and at the end, the heap of the
 * first and last tenths of the samples after the first 1,000 jobs, and the refusals.
 *
 * <p>Run: {@code ./bench.sh soak [--jobs N] [--window W] [--session-jobs S] [--no-forgetting]}.
 */
public final class SoakBench {
    private static final int SLEDS = 4;
    private static final int REPORT_EVERY = 1_000;

    private SoakBench() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = BenchArgs.intOption(args, "--jobs", 20_000);
        int window = BenchArgs.intOption(args, "--window", 4);
        int perSession = BenchArgs.intOption(args, "--session-jobs", 100);
        boolean forgetting = !Arrays.asList(args).contains("--no-forgetting");
        Path dir = Files.createTempDirectory(Path.of("ops", "target"), "bench-soak-");
        RackFile rack = RackCommand.create(dir, SLEDS, RackCommand.freePorts(SLEDS), Ordering.SIGNED);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        List<Process> procs = new ArrayList<>();
        try {
            for (RackFile.SledEntry s : rack.sleds()) {
                procs.add(RackAccess.start(dir, s, List.of(), forgetting ? List.of() : List.of("--no-forgetting")));
            }
            for (RackFile.SledEntry s : rack.sleds()) {
                RackAccess.awaitApi(s.api());
            }
            String api = rack.sleds().get(0).api();
            Client c = RackCommand.operatorClient(dir, "http://" + api);
            c.login();
            KeyId operator = c.credentials().identity().orElseThrow().key();
            awaitPeers(rack);

            long[] latency = new long[jobs];
            Semaphore inFlight = new Semaphore(window);
            Client watcher = RackCommand.operatorClient(dir, "http://" + api);
            watcher.login();
            StoppedWatch stopped = StoppedWatch.follow(watcher, SLEDS, "soak");

            System.out.printf(Locale.ROOT, "soak: %d sleds, %d jobs of `true` on every sled, sessions of %d, %d in "
                    + "flight, forgetting %s%n", SLEDS, jobs, perSession, window, forgetting ? "on" : "off");
            System.out.printf(Locale.ROOT, "%7s %9s %8s %9s %10s %10s %8s %8s%n", "jobs", "heap_MB", "rss_MB",
                    "messages", "journal_MB", "output_MB", "p50_ms", "p99_ms");
            long epoch = 0;
            SecureRandom random = new SecureRandom();
            Map<String, long[]> histogramEarly = null;
            double heapEarly = 0;
            double p99First = 0;
            double p99Last = 0;
            Sample last = null;
            List<Sample> samples = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < jobs; i++) {
                if (i % perSession == 0) {
                    // Wait for the previous session's jobs to end everywhere: a new session supersedes it.
                    inFlight.acquire(window);
                    inFlight.release(window);
                    epoch = Math.max(epoch + 1, System.currentTimeMillis());
                    byte[] nonce = new byte[Grant.NONCE_BYTES];
                    random.nextBytes(nonce);
                    var grant = key.sign(new Grant(epoch, key.id(), operator.codephrase(), nonce));
                    String session = c.post("/sessions/grant", SignedRequests.grantToJson(grant)).get("session_id")
                            .asString();
                    while (!session.equals(active(c))) {
                        Thread.sleep(2);
                    }
                }
                if (!inFlight.tryAcquire(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no job ended for 120 s at job " + i + "; see " + dir);
                }
                submit(c, key, stopped, latency, inFlight, i);
                if ((i + 1) % REPORT_EVERY == 0) {
                    inFlight.acquire(window);
                    inFlight.release(window);
                    long[] recent = Arrays.copyOfRange(latency, i + 1 - REPORT_EVERY, i + 1);
                    Arrays.sort(recent);
                    double p50 = recent[recent.length / 2] / 1e6;
                    double p99 = recent[(int) (recent.length * 0.99)] / 1e6;
                    last = sample(rack, procs, dir);
                    samples.add(last);
                    System.out.printf(Locale.ROOT, "%7d %9.1f %8.0f %9.0f %10.1f %10.1f %8.1f %8.1f%n", i + 1,
                            last.heapMb, last.rssMb, last.messages, last.journalMb, last.outputMb, p50, p99);
                    if (i + 1 == REPORT_EVERY) {
                        p99First = p99;
                        heapEarly = last.heapMb;
                        histogramEarly = histogram(procs.get(0));
                    }
                    p99Last = p99;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (last == null) {
                throw new IllegalStateException("--jobs must be at least " + REPORT_EVERY);
            }
            int measured = (jobs / REPORT_EVERY - 1) * REPORT_EVERY;
            double heapPerK = measured == 0 ? 0 : (last.heapMb - heapEarly) / measured * 1000;
            if (histogramEarly != null && jobs > REPORT_EVERY) {
                printGrowth(histogramEarly, histogram(procs.get(0)), measured);
            }
            System.out.printf(Locale.ROOT, "%.1f jobs/s over %.0f s; heap grows %.3f MB per 1,000 jobs per daemon%n",
                    jobs / seconds, seconds, heapPerK);
            // Issue 39's figures: after the first 1,000 jobs (the warm-up), the first and last tenths.
            List<Sample> after = samples.subList(Math.min(1, samples.size() - 1), samples.size());
            int tenth = Math.max(1, after.size() / 10);
            double heapFirst = after.subList(0, tenth).stream().mapToDouble(x -> x.heapMb).average().orElse(0);
            double heapLast = after.subList(after.size() - tenth, after.size()).stream().mapToDouble(x -> x.heapMb)
                    .average().orElse(0);
            double setMax = samples.stream().mapToDouble(x -> x.maxMessages).max().orElse(0);
            System.out.printf(Locale.ROOT, "{\"bench\":\"soak\",\"jobs\":%d,\"window\":%d,\"forgetting\":%b,"
                    + "\"jobs_per_s\":%.1f,\"refusals\":%d,"
                    + "\"heap_mb_per_1k_jobs\":%.3f,\"heap_mb_end\":%.1f,\"rss_mb_end\":%.0f,\"messages_end\":%.0f,"
                    + "\"set_max\":%.0f,\"set_last\":%.0f,\"heap_mb_first_10pct\":%.1f,\"heap_mb_last_10pct\":%.1f,"
                    + "\"journal_mb_end\":%.1f,\"output_mb_end\":%.1f,\"p99_ms_first_1k\":%.1f,\"p99_ms_last_1k\":%.1f,"
                    + "\"set_fill\":%.4f}%n", jobs, window, forgetting, jobs / seconds, stopped.refusals(), heapPerK,
                    last.heapMb, last.rssMb, last.messages, setMax, last.maxMessages, heapFirst, heapLast,
                    last.journalMb, last.outputMb, p99First, p99Last, last.fill);
        } finally {
            procs.forEach(Process::destroy);
            for (Process p : procs) {
                p.waitFor();
            }
        }
    }

    /** What one report line shows: means over the daemons. */
    private record Sample(double heapMb, double rssMb, double messages, double maxMessages, double fill,
            double journalMb, double outputMb) {
    }

    private static Sample sample(RackFile rack, List<Process> procs, Path dir) throws Exception {
        double heap = 0;
        double rss = 0;
        double messages = 0;
        double maxMessages = 0;
        double fill = 0;
        double journal = 0;
        double output = 0;
        for (int i = 0; i < SLEDS; i++) {
            Process p = procs.get(i);
            jcmd(p, "GC.run");
            Map<String, Double> m = metrics(rack.sleds().get(i).api());
            heap += m.getOrDefault("heap", 0.0);
            messages += m.getOrDefault("sush_gossip_messages", 0.0);
            maxMessages = Math.max(maxMessages, m.getOrDefault("sush_gossip_messages", 0.0));
            fill = Math.max(fill, m.getOrDefault("sush_gossip_set_fill_ratio", 0.0));
            Path out = rack.sleds().get(i).output();
            journal += diskBytes(out.resolve("journal"));
            rss += rssMb(p);
            output += diskBytes(out.resolve("jobs"));
        }
        double mb = 1024.0 * 1024.0;
        return new Sample(heap / SLEDS / mb, rss / SLEDS, messages / SLEDS, maxMessages, fill, journal / SLEDS / mb,
                output / SLEDS / mb);
    }

    /** The gauges this bench reads from a sled's {@code /metrics} (heap: the sum over the heap's pools). */
    private static Map<String, Double> metrics(String api) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + api
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        Map<String, Double> m = new HashMap<>();
        for (String line : r.body().split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            double value = Double.parseDouble(line.substring(space + 1));
            String name = line.substring(0, space);
            if (name.startsWith("jvm_memory_used_bytes{") && name.contains("area=\"heap\"")) {
                m.merge("heap", value, Double::sum);
            } else if (!name.contains("{")) {
                m.put(name, value);
            }
        }
        return m;
    }

    private static String jcmd(Process p, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process j = new ProcessBuilder(jcmd.toString(), Long.toString(p.pid()), command).redirectErrorStream(true)
                .start();
        String out = new String(j.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (j.waitFor() != 0) {
            throw new IOException("jcmd " + command + " failed: " + out);
        }
        return out;
    }

    /** Class name to {instances, bytes} from {@code jcmd GC.class_histogram} (a full collection first). */
    private static Map<String, long[]> histogram(Process p) throws IOException, InterruptedException {
        Map<String, long[]> h = new HashMap<>();
        for (String line : jcmd(p, "GC.class_histogram").split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                h.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return h;
    }

    private static void printGrowth(Map<String, long[]> early, Map<String, long[]> late, int jobs) {
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        for (Map.Entry<String, long[]> e : late.entrySet()) {
            long[] before = early.getOrDefault(e.getKey(), new long[2]);
            grown.add(Map.entry(e.getKey(), new long[] {e.getValue()[0] - before[0], e.getValue()[1] - before[1]}));
        }
        grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        System.out.printf(Locale.ROOT, "what grew on sled 0 over the last %d jobs (instances and bytes per job):%n",
                jobs);
        for (Map.Entry<String, long[]> e : grown.subList(0, Math.min(10, grown.size()))) {
            System.out.printf(Locale.ROOT, "  %-70s %8.2f %9.1f%n", e.getKey(), e.getValue()[0] / (double) jobs,
                    e.getValue()[1] / (double) jobs);
        }
    }

    private static void awaitPeers(RackFile rack) throws Exception {
        for (RackFile.SledEntry s : rack.sleds()) {
            for (int i = 0; i < 600; i++) {
                Map<String, Double> m = metrics(s.api());
                if (m.getOrDefault("sush_links", 0.0) >= SLEDS - 1) {
                    break;
                }
                Thread.sleep(100);
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

    /** Submits job {@code i}; when every sled stopped it, its round trip lands in {@code latency[i]} and a slot frees. */
    private static void submit(Client c, SignerKey key, StoppedWatch stopped, long[] latency, Semaphore inFlight,
            int i) throws Exception {
        JsonNode s = c.get("/sessions");
        SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(), "true", "*", true);
        String id = job.request().job().codephrase();
        long t0 = System.nanoTime();
        stopped.of(id).thenAccept(at -> {
            latency[i] = at - t0;
            stopped.forget(id);
            inFlight.release();
        });
        c.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        // The next position is known once this sled folded the request.
        while (id.equals(c.get("/sessions").get("next_job").asString())) {
            Thread.sleep(1);
        }
    }

    /**
     * Bytes a directory takes on disk ({@code du}): the journal's hourly file is sparse (Chronicle
     * maps it ahead of its writes), and a job's directory takes blocks whatever its files hold.
     */
    private static long diskBytes(Path root) throws IOException, InterruptedException {
        if (!Files.exists(root)) {
            return 0;
        }
        Process du = new ProcessBuilder("du", "-s", "--block-size=1", root.toString()).redirectErrorStream(true).start();
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (du.waitFor() != 0) {
            throw new IOException("du " + root + ": " + out);
        }
        return Long.parseLong(out.trim().split("\\s+")[0]);
    }

    private static double rssMb(Process p) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        }
        return 0;
    }
}
