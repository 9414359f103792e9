package sush.ops.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.ops.wire.SignedRequests;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.Ordering;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Issue 22's bar on one real daemon (its own JVM): resident memory idle, then under 20 stalled
 * downloads of a 60 MB output and 900 idle connections, and `/version` latency meanwhile
 * (bar: RSS under 400 MB, `/version` under 50 ms). Run: {@code ./bench.sh hostile}.
 */
public final class HostileBench {
    private HostileBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int stalledDownloads = 20;
        int idleConnections = 900;
        long outputBytes = 60L << 20;
        Path dir = Files.createTempDirectory(Path.of("ops", "target"), "bench-hostile-");
        RackFile rack = RackCommand.create(dir, 1, RackCommand.freePorts(1), Ordering.CAUSAL);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        RackFile.SledEntry sled = rack.sleds().get(0);
        Process daemon = RackAccess.start(dir, sled);
        List<Socket> idle = new ArrayList<>();
        List<HttpResponse<InputStream>> stalled = new ArrayList<>();
        try {
            RackAccess.awaitApi(sled.api());
            Client c = RackCommand.operatorClient(dir, "http://" + sled.api());
            String sid = ActiveSession.start(c);
            JsonNode s = c.get("/sessions");
            while (!sid.equals(s.path("session_id").asString())) {
                Thread.sleep(20);
                s = c.get("/sessions");
            }
            SignedJob job = Jobs.at(key, sid, s.get("next_job").asString(), "head -c " + outputBytes + " /dev/urandom",
                    "*", false);
            String id = job.request().job().codephrase();
            c.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
            while (!"stopped".equals(status(c, id, sled.baseboard()))) {
                Thread.sleep(50);
            }
            Thread.sleep(1000);
            double rssIdle = rssMb(daemon.pid());
            double[] idleLatency = versionLatency(c, quick ? 20 : 50);

            String path = "/jobs/" + id + "/output/stdout";
            for (int i = 0; i < stalledDownloads; i++) {
                HttpResponse<InputStream> r = c.raw("GET", path, new byte[0], Map.of(),
                        HttpResponse.BodyHandlers.ofInputStream());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("download " + i + ": " + r.statusCode());
                }
                stalled.add(r);
            }
            String[] hp = sled.api().split(":");
            int refused = 0;
            for (int i = 0; i < idleConnections; i++) {
                try {
                    idle.add(new Socket(hp[0], Integer.parseInt(hp[1])));
                } catch (IOException e) {
                    refused++;
                }
            }
            Thread.sleep(2000);
            double[] loadedLatency = versionLatency(c, quick ? 20 : 50);
            double rssLoaded = rssMb(daemon.pid());
            System.out.printf(Locale.ROOT, "one daemon, a %d MB output, %d stalled downloads, %d idle connections "
                    + "(%d refused at connect)%n", outputBytes >> 20, stalledDownloads, idleConnections, refused);
            System.out.printf(Locale.ROOT, "RSS idle %.0f MB, under load %.0f MB (bar: < 400 MB)%n", rssIdle, rssLoaded);
            System.out.printf(Locale.ROOT, "/version idle p50 %.1f ms max %.1f ms; under load p50 %.1f ms max %.1f ms "
                    + "(bar: < 50 ms)%n", idleLatency[0], idleLatency[1], loadedLatency[0], loadedLatency[1]);
            System.out.printf(Locale.ROOT, "{\"bench\":\"hostile\",\"rss_idle_mb\":%.0f,\"rss_loaded_mb\":%.0f,"
                    + "\"version_idle_p50_ms\":%.2f,\"version_idle_max_ms\":%.2f,\"version_loaded_p50_ms\":%.2f,"
                    + "\"version_loaded_max_ms\":%.2f}%n", rssIdle, rssLoaded, idleLatency[0], idleLatency[1],
                    loadedLatency[0], loadedLatency[1]);
        } finally {
            for (HttpResponse<InputStream> r : stalled) {
                r.body().close();
            }
            for (Socket sock : idle) {
                sock.close();
            }
            daemon.destroyForcibly();
        }
        System.exit(0);
    }

    private static String status(Client c, String id, String board) {
        try {
            return c.get("/jobs/" + id + "/status").get("statuses").path(board).path("status").asString();
        } catch (Client.Failure f) {
            return null;
        }
    }

    /** p50 and max of {@code n} signed `/version` requests, in ms. */
    private static double[] versionLatency(Client c, int n) throws Exception {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            c.get("/version");
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return new double[] {ms[n / 2], ms[n - 1]};
    }

    private static double rssMb(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        }
        return -1;
    }
}
