package sush.ops.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
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

    /**
     * A rack of {@code sleds} real daemons in this JVM with a history of {@code jobs} jobs of
     * {@code true}, each on one cubby in turn, signed back to back at the chain's successors, all
     * stopped; and a read token for the page. Closing it stops the daemons.
     */
    public static final class History implements AutoCloseable {
        public final RackFile rack;
        public final List<Daemon> daemons = new ArrayList<>();
        public final String token;
        public final String url;

        public History(Path top, int sleds, int jobs) throws Exception {
            // Free ports are picked before they are bound: one taken meanwhile (by another test's
            // socket) is a bind failure, and the rack is made again on other ports.
            RackFile made = null;
            Path dir = null;
            long t0 = System.nanoTime();
            for (int attempt = 0; made == null; attempt++) {
                dir = Files.createDirectories(top.resolve("rack-" + attempt));
                RackFile r = RackCommand.create(dir, sleds, RackCommand.freePorts(sleds),
                        Ordering.CAUSAL);
                try {
                    for (RackFile.SledEntry s : r.sleds()) {
                        daemons.add(Daemon.start(r.settings(s, Optional.empty())));
                    }
                    made = r;
                } catch (Daemon.DaemonException e) {
                    close();
                    daemons.clear();
                    if (attempt == 2 || !String.valueOf(e.getMessage()).contains("already in use")) {
                        throw e;
                    }
                }
            }
            rack = made;
            SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
            try {
                Client c = RackCommand.operatorClient(dir, "http://" + rack.sleds().get(0).api());
                while (c.get("/versions").get("sleds").size() < sleds) {
                    Thread.sleep(200);
                }
                System.err.printf(Locale.ROOT, "%d sleds up in %.1f s%n", sleds, (System.nanoTime() - t0) / 1e9);
                String session = ActiveSession.start(c);
                JsonNode s = c.get("/sessions");
                JobId at = JobId.parse(s.get("next_job").asString());
                SessionId sid = SessionId.parse(session);
                long t1 = System.nanoTime();
                String last = null;
                for (int i = 0; i < jobs; i++) {
                    SignedJob j = Jobs.at(key, sid, at, "true", Integer.toString(i % sleds), true);
                    c.post("/jobs/" + at.codephrase() + "/start", SignedRequests.toJson(j));
                    last = at.codephrase();
                    at = j.request().successor();
                }
                String lastJob = last;
                String lastSled = rack.sleds().get((jobs - 1) % sleds).baseboard();
                while (lastJob != null && !stopped(c, lastJob, lastSled)) {
                    Thread.sleep(200);
                }
                System.err.printf(Locale.ROOT, "%d jobs run in %.1f s%n", jobs, (System.nanoTime() - t1) / 1e9);
                c.login();
                token = c.credentials().readToken(System.currentTimeMillis() + 3_600_000).orElseThrow();
                url = "http://" + rack.sleds().get(0).api() + "/#token=" + token;
            } catch (Exception | Error e) {
                close();
                throw e;
            }
        }

        @Override
        public void close() {
            daemons.forEach(Daemon::close);
        }
    }

    /** Headless Chromium (Debian's chromium and chromium-driver) at 1400x1700. */
    public static WebDriver chromium() {
        ChromeOptions o = new ChromeOptions();
        o.setBinary("/usr/bin/chromium");
        o.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1700");
        return new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(
                new File("/usr/bin/chromedriver")).usingAnyFreePort().build(), o);
    }

    /**
     * Loads the page at {@code url} (from a blank page) and waits until it is drawn: the
     * milliseconds from navigation to the page drawn with every sled's state, the session and
     * the jobs, after the next frame (the page's own {@code data-load-ms}).
     */
    public static double load(WebDriver web, String url) {
        web.get("about:blank");
        web.get(url);
        try {
            new WebDriverWait(web, Duration.ofSeconds(60)).until(d -> "true".equals(d.findElement(
                    By.tagName("body")).getDomAttribute("data-ready")));
        } catch (org.openqa.selenium.TimeoutException e) {
            // What the page itself says went wrong (its list of errors and refusals), with the
            // requests it made: a page that never drew must say why in the test's report.
            throw new AssertionError("the page at " + url.replaceAll("#.*", "") + " was not drawn within 60 s; its "
                    + "errors: " + web.findElement(By.id("errors")).getText().replace('\n', '|') + "; its requests: "
                    + ((JavascriptExecutor) web).executeScript("return performance.getEntriesByType('resource')"
                            + ".map(e => e.name.replace(/^.*\\/\\/[^/]*/, '') + ' ' + e.startTime.toFixed(0) + '+'"
                            + " + e.duration.toFixed(0) + ' ' + e.responseStatus).join(', ')"), e);
        }
        return Double.parseDouble(String.valueOf(((JavascriptExecutor) web).executeScript(
                "return document.body.dataset.loadMs")));
    }

    /** Where the last load's time went: the page's elements built, and its slowest requests. */
    public static String breakdown(WebDriver web) {
        return String.valueOf(((JavascriptExecutor) web).executeScript(
                "const n = performance.getEntriesByType('navigation')[0];"
                + "return 'built ' + document.body.dataset.builtMs + ' ms, html ' + n.responseEnd.toFixed(0)"
                + " + ' ms, dom ' + n.domContentLoadedEventEnd.toFixed(0) + ' ms | ' +"
                + "performance.getEntriesByType('resource').sort((a,b)=>b.responseEnd-a.responseEnd).slice(0,6)"
                + ".map(e=>e.name.replace(/^.*\\/\\/[^/]*/,'')+' '+e.startTime.toFixed(0)+'+'+e.duration.toFixed(0))"
                + ".join(', ')"));
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int sleds = BenchArgs.intOption(args, "--sleds", quick ? 4 : 32);
        int jobs = BenchArgs.intOption(args, "--jobs", quick ? 50 : 1000);
        int loads = BenchArgs.intOption(args, "--loads", 5);
        Path dir = Files.createTempDirectory(Path.of("ops", "target"), "bench-page-");
        try (History h = new History(dir, sleds, jobs)) {
            WebDriver web = chromium();
            List<Double> ms = new ArrayList<>();
            int rows = 0;
            int up = 0;
            boolean live = false;
            try {
                for (int i = 0; i < loads; i++) {
                    ms.add(load(web, h.url));
                    System.err.println("load " + i + " (" + ms.get(i) + " ms): " + breakdown(web));
                    rows = web.findElements(By.cssSelector("#jobs-body .job")).size();
                    up = web.findElements(By.cssSelector(".cubby.state-up")).size();
                }
                // Following the event stream on a sled with a long history (a new stream replays it).
                Thread.sleep(3000);
                live = "live".equals(web.findElement(By.id("live")).getText());
            } finally {
                web.quit();
            }
            List<Double> sorted = new ArrayList<>(ms);
            Collections.sort(sorted);
            System.out.printf(Locale.ROOT, "page loads (ms): %s%n", ms);
            System.out.printf(Locale.ROOT, "{\"bench\":\"page\",\"sleds\":%d,\"jobs\":%d,\"rows\":%d,\"cubbies_up\":%d,\"live\":%b,"
                    + "\"load_ms_first\":%.1f,\"load_ms_best\":%.1f,\"load_ms_median\":%.1f,\"loads\":%d}%n", sleds, jobs,
                    rows, up, live, ms.get(0), sorted.get(0), sorted.get(sorted.size() / 2), loads);
        }
    }
}
