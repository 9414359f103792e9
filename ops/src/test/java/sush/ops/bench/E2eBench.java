package sush.ops.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import sush.ops.SignedRequests;
import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * End to end on a 4-sled loopback rack of real daemons (separate JVMs): time from `job start` to
 * every sled `Stopped` for `true` (one job at a time), jobs per second through one session (jobs
 * flagged concurrent, submitted back to back), and each daemon's resident memory idle and under
 * that load. Run: {@code ./bench.sh e2e [--quick]}.
 */
public final class E2eBench {
    private E2eBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int jobs = quick ? 30 : 100;
        Path dir = Files.createTempDirectory(Path.of("ops", "target"), "bench-e2e-");
        RackFile rack = RackCommand.create(dir, 4, 27_100, sush.projections.fold.Ordering.CAUSAL);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        List<Process> procs = new ArrayList<>();
        try {
            for (RackFile.SledEntry s : rack.sleds()) {
                procs.add(RackAccess.start(dir, s));
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
            java.net.http.HttpClient bare = java.net.http.HttpClient.newHttpClient();
            java.net.URI challenge = java.net.URI.create("http://" + rack.sleds().get(0).api() + "/login/challenge");
            long r0 = System.nanoTime();
            for (int i = 0; i < requests; i++) {
                bare.send(java.net.http.HttpRequest.newBuilder(challenge).POST(java.net.http.HttpRequest.BodyPublishers
                        .noBody()).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            }
            double plainMs = (System.nanoTime() - r0) / 1e6 / requests;
            long s0 = System.nanoTime();
            for (int i = 0; i < requests; i++) {
                c.get("/version");
            }
            double signedMs = (System.nanoTime() - s0) / 1e6 / requests;
            Thread.sleep(3000);
            String session = c.post("/sessions/start", Map.of("starter", "bench")).get("session_id").asString();
            while (!session.equals(active(c))) {
                Thread.sleep(20);
            }
            Thread.sleep(1000);
            double rssIdle = rssMb(procs);
            long[] latency = new long[jobs];
            for (int i = 0; i < jobs; i++) {
                long t0 = System.nanoTime();
                String id = submit(c, key, false);
                while (stopped(c, id) < 4) {
                    Thread.sleep(2);
                }
                latency[i] = System.nanoTime() - t0;
            }
            // Throughput: concurrent jobs back to back, then wait for the last to end everywhere.
            long t0 = System.nanoTime();
            String last = null;
            double rssLoad = 0;
            for (int i = 0; i < jobs; i++) {
                last = submit(c, key, true);
                if (i == jobs / 2) {
                    rssLoad = rssMb(procs);
                }
            }
            while (stopped(c, last) < 4) {
                Thread.sleep(5);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Arrays.sort(latency);
            double p50 = latency[jobs / 2] / 1e6;
            double p99 = latency[Math.min(jobs - 1, (int) (jobs * 0.99))] / 1e6;
            System.out.printf(Locale.ROOT, "e2e: 4 daemons on loopback, %d jobs of `true`%n", jobs);
            System.out.printf(Locale.ROOT, "job start to every sled stopped: p50 %.1f ms, p99 %.1f ms%n", p50, p99);
            System.out.printf(Locale.ROOT, "through one session: %.1f jobs/s (each on 4 sleds)%n", jobs / seconds);
            System.out.printf(Locale.ROOT, "resident memory per daemon: idle %.0f MB, under load %.0f MB%n", rssIdle, rssLoad);
            System.out.printf(Locale.ROOT, "operator login: %.2f ms; signed request (GET /version): %.2f ms, next to "
                    + "an unsigned round trip (POST /login/challenge): %.2f ms%n", loginMs, signedMs, plainMs);
            System.out.printf(Locale.ROOT, "{\"bench\":\"e2e\",\"p50_ms\":%.1f,\"p99_ms\":%.1f,\"jobs_per_s\":%.1f,"
                    + "\"rss_idle_mb\":%.0f,\"rss_load_mb\":%.0f,\"login_ms\":%.2f,\"signed_request_ms\":%.2f,"
                    + "\"unsigned_request_ms\":%.2f}%n", p50, p99, jobs / seconds, rssIdle, rssLoad, loginMs, signedMs,
                    plainMs);
        } finally {
            procs.forEach(Process::destroy);
            for (Process p : procs) {
                p.waitFor();
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

    private static String submit(Client c, SignerKey key, boolean concurrent) throws Exception {
        JsonNode s = c.get("/sessions");
        SignedJob job = key.sign(new JobRequest(SessionId.parse(s.get("session_id").asString()),
                JobId.parse(s.get("next_job").asString()), "true", "*", concurrent));
        String id = job.request().job().codephrase();
        c.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        // The next position is known once this sled folded the request.
        while (id.equals(c.get("/sessions").get("next_job").asString())) {
            Thread.sleep(1);
        }
        return id;
    }

    private static int stopped(Client c, String id) {
        try {
            int n = 0;
            for (JsonNode st : c.get("/jobs/" + id + "/status").get("statuses")) {
                n += "stopped".equals(st.path("status").asString()) ? 1 : 0;
            }
            return n;
        } catch (Client.Failure f) {
            return 0;
        }
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
