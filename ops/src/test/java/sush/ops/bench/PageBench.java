package sush.ops.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import sush.ops.SignedRequests;
import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * The rack page's load time (issue 20): a rack of 32 real daemons (in this JVM) with a history
 * of 1,000 jobs (each on one cubby, signed back to back at the chain's successors), then
 * Chromium loads the page: milliseconds from navigation to the page drawn with every sled's
 * state, the session and the 1,000 job rows (its {@code data-load-ms}), best and median of
 * several loads. Run: {@code ./bench.sh page [--sleds N] [--jobs N] [--loads N]}.
 */
public final class PageBench {
    private PageBench() {
    }

    private static boolean stopped(Client c, String job, String sled) {
        try {
            return c.get("/jobs/" + job + "/status").path("statuses").path(sled).path("status").asString("")
                    .equals("stopped");
        } catch (Client.Failure f) {
            return false; // no status yet
        }
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int sleds = BenchArgs.intOption(args, "--sleds", quick ? 4 : 32);
        int jobs = BenchArgs.intOption(args, "--jobs", quick ? 50 : 1000);
        int loads = BenchArgs.intOption(args, "--loads", 5);
        Path dir = Files.createTempDirectory(Path.of("ops", "target"), "bench-page-");
        RackFile rack = RackCommand.create(dir, sleds, RackCommand.freePorts(sleds),
                sush.projections.fold.Ordering.CAUSAL);
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        List<Daemon> daemons = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            for (RackFile.SledEntry s : rack.sleds()) {
                daemons.add(Daemon.start(rack.settings(s, Optional.empty())));
            }
            Client c = RackCommand.operatorClient(dir, "http://" + rack.sleds().get(0).api());
            while (c.get("/versions").get("sleds").size() < sleds) {
                Thread.sleep(200);
            }
            System.err.printf(Locale.ROOT, "%d sleds up in %.1f s%n", sleds, (System.nanoTime() - t0) / 1e9);
            String session = c.post("/sessions/start", Map.of()).get("session_id").asString();
            while (!session.equals(c.get("/sessions").path("session_id").asString(""))) {
                Thread.sleep(50);
            }
            JsonNode s = c.get("/sessions");
            JobId at = JobId.parse(s.get("next_job").asString());
            SessionId sid = SessionId.parse(session);
            long t1 = System.nanoTime();
            String last = null;
            for (int i = 0; i < jobs; i++) {
                JobRequest r = new JobRequest(sid, at, "true", Integer.toString(i % sleds), true);
                SignedJob j = key.sign(r);
                c.post("/jobs/" + at.codephrase() + "/start", SignedRequests.toJson(j));
                last = at.codephrase();
                at = r.successor();
            }
            String lastJob = last;
            String lastSled = rack.sleds().get((jobs - 1) % sleds).baseboard();
            while (!stopped(c, lastJob, lastSled)) {
                Thread.sleep(200);
            }
            System.err.printf(Locale.ROOT, "%d jobs run in %.1f s%n", jobs, (System.nanoTime() - t1) / 1e9);
            c.login();
            String token = c.credentials().readToken(System.currentTimeMillis() + 3_600_000).orElseThrow();
            String url = "http://" + rack.sleds().get(0).api() + "/#token=" + token;
            ChromeOptions o = new ChromeOptions();
            o.setBinary("/usr/bin/chromium");
            o.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1700");
            WebDriver web = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(
                    new java.io.File("/usr/bin/chromedriver")).usingAnyFreePort().build(), o);
            List<Double> ms = new ArrayList<>();
            int rows = 0;
            int up = 0;
            boolean live = false;
            try {
                for (int i = 0; i < loads; i++) {
                    web.get("about:blank");
                    web.get(url);
                    new WebDriverWait(web, Duration.ofSeconds(60)).until(d -> "true".equals(d.findElement(
                            By.tagName("body")).getDomAttribute("data-ready")));
                    ms.add(Double.parseDouble(String.valueOf(((JavascriptExecutor) web).executeScript(
                            "return document.body.dataset.loadMs"))));
                    rows = web.findElements(By.cssSelector("#jobs-body tr")).size();
                    up = web.findElements(By.cssSelector(".cubby.state-up")).size();
                }
                // Following the event stream on a sled with a long history (a new stream replays it).
                Thread.sleep(3000);
                live = "live".equals(web.findElement(By.id("live")).getText());
            } finally {
                web.quit();
            }
            List<Double> sorted = new ArrayList<>(ms);
            java.util.Collections.sort(sorted);
            System.out.printf(Locale.ROOT, "page loads (ms): %s%n", ms);
            System.out.printf(Locale.ROOT, "{\"bench\":\"page\",\"sleds\":%d,\"jobs\":%d,\"rows\":%d,\"cubbies_up\":%d,\"live\":%b,"
                    + "\"load_ms_best\":%.1f,\"load_ms_median\":%.1f,\"loads\":%d}%n", sleds, jobs, rows, up, live,
                    sorted.get(0), sorted.get(sorted.size() / 2), loads);
        } finally {
            daemons.forEach(Daemon::close);
        }
    }
}
