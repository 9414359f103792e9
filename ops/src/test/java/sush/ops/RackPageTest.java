package sush.ops;

import sush.ops.wire.SignedRequests;
import sush.ops.wire.Json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fixtures.Jobs;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Issue 20: the rack page in a real browser (Chromium through its driver, headless) against a
 * 4-sled rack of real daemons: four sleds drawn; a job appears and its cells turn to stopped
 * exit 0 without a reload, its output verified in the page; a sled killed with -9 turns DOWN
 * and comes back after {@code sush rack restart}; {@code GET /rack} answers for the whole rack. Screenshots of each step go to target/rack-page/.
 */
class RackPageTest extends ProcessRack {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    @Test
    void theRackPageFollowsTheRackLive() throws Exception {
        boolean browser = Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER);
        if (!browser) {
            System.out.println("skipped: no chromium and chromedriver here (Debian packages chromium, chromium-driver)");
        }
        Assumptions.assumeTrue(browser, "chromium and chromium-driver");
        rack = RackCommand.create(dir, 4, LocalRack.freePorts(4), sush.projections.fold.Ordering.CAUSAL);
        for (int i = 0; i < 4; i++) {
            processes.add(RackAccess.start(dir, rack.sleds().get(i)));
        }
        for (int i = 0; i < 4; i++) {
            assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
        }
        await("one universe of four", () -> {
            try {
                for (int i = 0; i < 4; i++) {
                    if (client(i).get("/versions").get("sleds").size() < 4) {
                        return false;
                    }
                }
                return true;
            } catch (Client.Failure f) {
                return false;
            }
        });
        Client op = client(0);
        op.login();
        String token = op.credentials().readToken(System.currentTimeMillis() + 3_600_000).orElseThrow();
        String base = "http://" + rack.sleds().get(0).api();

        // The token reads and never writes.
        HttpResponse<String> write = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base
                + "/sessions/start")).header("Authorization", "SushRead " + token).POST(HttpRequest.BodyPublishers
                        .ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, write.statusCode(), write.body());
        assertTrue(write.body().contains("read-only"), write.body());

        // The whole rack in one answer (D-035): every sled asked at once with the token.
        HttpResponse<String> whole = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/rack"))
                .header("Authorization", "SushRead " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, whole.statusCode(), whole.body());
        JsonNode sleds = sush.ops.wire.Json.MAPPER.readTree(whole.body()).get("sleds");
        assertEquals(4, sleds.size(), whole.body());
        for (int i = 0; i < 4; i++) {
            JsonNode e = sleds.get(i);
            assertTrue(e.get("reachable").asBoolean(), whole.body());
            // Each sled's own /version and /boundary: its own baseboard in both.
            assertEquals(e.get("baseboard").asString(), e.get("version").get("baseboard").asString(), whole.body());
            assertEquals(e.get("baseboard").asString(), e.get("boundary").get("baseboard").asString(), whole.body());
            assertTrue(e.get("boundary").get("trusted").asBoolean(), whole.body());
        }
        // A signed request names one path: the whole rack needs a read token; one sled is relayed.
        Client.Failure signed = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class,
                () -> op.get("/rack"));
        assertEquals("read-token-needed", signed.code(), signed.getMessage());
        String b2 = rack.sleds().get(2).baseboard();
        JsonNode two = op.get("/rack?sled=" + java.net.URLEncoder.encode(b2, java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(b2, two.get("version").get("baseboard").asString(), two.toString());

        // A sled that takes connections and answers nothing (SIGSTOP): the rack's answer comes at
        // the bound (2.5 s) with the sled unreachable and why, the others as usual.
        ProcessHandle stalled = RackAccess.running(rack.sleds().get(1)).orElseThrow();
        new ProcessBuilder("kill", "-STOP", Long.toString(stalled.pid())).start().waitFor();
        try {
            long asked = System.nanoTime();
            HttpResponse<String> slow = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base
                    + "/rack")).header("Authorization", "SushRead " + token).build(), HttpResponse.BodyHandlers.ofString());
            double slowMs = (System.nanoTime() - asked) / 1e6;
            JsonNode all = sush.ops.wire.Json.MAPPER.readTree(slow.body()).get("sleds");
            assertEquals(4, all.size(), slow.body());
            for (JsonNode e : all) {
                boolean isStalled = e.get("baseboard").asString().equals(rack.sleds().get(1).baseboard());
                assertEquals(!isStalled, e.get("reachable").asBoolean(), slow.body());
                if (isStalled) {
                    assertTrue(e.get("error").asString().startsWith("no answer within 2500 ms"), slow.body());
                }
            }
            assertTrue(slowMs >= 2_500, "answered at the bound, not before: " + slowMs);
            System.out.printf(java.util.Locale.ROOT, "/rack with sled 1 stopped (SIGSTOP): %.0f ms%n", slowMs);
        } finally {
            new ProcessBuilder("kill", "-CONT", Long.toString(stalled.pid())).start().waitFor();
        }

        Path shots = Files.createDirectories(Path.of("target", "rack-page"));
        ChromeOptions o = new ChromeOptions();
        o.setBinary(CHROMIUM.toFile());
        o.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1700");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().build();
        WebDriver web = new ChromeDriver(service, o);
        try {
            // The page redraws the rack every two seconds: an element read between two draws is stale.
            org.openqa.selenium.support.ui.FluentWait<WebDriver> wait = new WebDriverWait(web, Duration.ofSeconds(30))
                    .ignoring(org.openqa.selenium.StaleElementReferenceException.class);
            // The first draw while GET /rack fails (blocked in the browser, as a cut connection
            // would fail it): the page says so and asks again until it is answered, never blank.
            ChromeDriver chrome = (ChromeDriver) web;
            chrome.executeCdpCommand("Network.enable", Map.of());
            chrome.executeCdpCommand("Network.setBlockedURLs", Map.of("urls", java.util.List.of("*/rack")));
            web.get(base + "/#token=" + token);
            wait.until(d -> d.findElement(By.id("errors")).getText().contains("could not read the rack (asking again)"));
            assertEquals(null, web.findElement(By.tagName("body")).getDomAttribute("data-ready"));
            chrome.executeCdpCommand("Network.setBlockedURLs", Map.of("urls", java.util.List.of()));
            wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getDomAttribute("data-ready")));
            wait.until(d -> d.findElements(By.cssSelector(".cubby.state-up")).size() == 4);
            assertEquals(28, web.findElements(By.cssSelector(".cubby.state-empty")).size());
            assertTrue(web.getCurrentUrl().indexOf("token") < 0, "the token left the address bar");
            shot(web, shots.resolve("1-four-sleds.png"));

            // A job from the operator: its row appears and fills in live.
            String session = op.post("/sessions/start", Map.of()).get("session_id").asString();
            await("session active", () -> {
                try {
                    return session.equals(client(3).get("/sessions").get("session_id").asString());
                } catch (Client.Failure f) {
                    return false;
                }
            });
            SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
            JsonNode s = op.get("/sessions");
            SignedJob job = Jobs.at(key, s.get("session_id").asString(), s.get("next_job").asString(),
                    "echo hello from $SUSH_JOB_ID", "*", false);
            String id = job.request().job().codephrase();
            op.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
            By done = By.cssSelector(".job[data-job='" + id + "'] .cell.status-stopped.ok");
            wait.until(d -> d.findElements(done).size() == 4);
            assertTrue(web.findElement(By.cssSelector(".job[data-job='" + id + "']")).getText().contains("stopped exit 0"));
            // Its position on the session's chain, learnt without a reload too.
            wait.until(d -> !d.findElements(By.cssSelector("#chain .pos[title^='" + id + "']")).isEmpty());
            shot(web, shots.resolve("2-job-stopped-everywhere.png"));
            // Its output, fetched through the serving sled and checked against the status hash in the page.
            web.findElement(By.cssSelector(".job[data-job='" + id + "'] .cell[data-sled='" + rack.sleds().get(2).baseboard()
                    + "'] a.output")).click();
            wait.until(d -> d.findElement(By.cssSelector(".job[data-job='" + id + "'] .cell[data-sled='"
                    + rack.sleds().get(2).baseboard() + "'] a.output")).getText().equals("stdout (verified)"));
            // Issue 41: an output larger than the page once checked (8 MiB), hashed as it arrives
            // in a worker and verified all the same.
            String b2big = rack.sleds().get(2).baseboard();
            SignedJob big = Jobs.at(key, s.get("session_id").asString(), job.request().successor().codephrase(),
                    "head -c 12582912 /dev/zero | tr '\\000' x", b2big, false);
            String bigId = big.request().job().codephrase();
            op.post("/jobs/" + bigId + "/start", SignedRequests.toJson(big));
            By bigCell = By.cssSelector(".job[data-job='" + bigId + "'] .cell[data-sled='" + b2big + "']");
            wait.until(d -> !d.findElements(By.cssSelector(".job[data-job='" + bigId + "'] .cell.status-stopped.ok"))
                    .isEmpty());
            web.findElement(bigCell).findElement(By.cssSelector("a.output")).click();
            wait.until(d -> d.findElement(bigCell).findElement(By.cssSelector("a.output")).getText()
                    .equals("stdout (verified)"));
            assertTrue(web.findElement(bigCell).findElement(By.cssSelector("a.output")).getDomAttribute("title")
                    .startsWith("12582912 bytes"), "the whole output was hashed");

            // kill -9 of sled 3: DOWN; a restart: UP again.
            String b3 = rack.sleds().get(3).baseboard();
            ProcessHandle h = RackAccess.running(rack.sleds().get(3)).orElseThrow();
            h.destroyForcibly();
            h.onExit().get();
            By three = By.cssSelector(".cubby[data-baseboard='" + b3 + "']");
            wait.until(d -> d.findElement(three).getDomAttribute("class").contains("state-down"));
            wait.until(d -> d.findElement(three).getText().contains("DOWN"));
            // The rack's answer says why, at once (its port refuses), without waiting out the bound.
            long asked = System.nanoTime();
            HttpResponse<String> down = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base
                    + "/rack")).header("Authorization", "SushRead " + token).build(), HttpResponse.BodyHandlers.ofString());
            double downMs = (System.nanoTime() - asked) / 1e6;
            JsonNode gone = null;
            for (JsonNode e : sush.ops.wire.Json.MAPPER.readTree(down.body()).get("sleds")) {
                if (e.get("baseboard").asString().equals(b3)) {
                    gone = e;
                }
            }
            assertTrue(gone != null && !gone.get("reachable").asBoolean() && gone.hasNonNull("error"), down.body());
            System.out.printf(java.util.Locale.ROOT, "/rack with sled 3 killed: %.0f ms: %s%n", downMs, gone);
            shot(web, shots.resolve("3-sled-killed.png"));
            // The operator's way back: sush rack restart (it starts the sled and waits for it).
            assertEquals(0, sush.ops.Main.run("rack", "restart", "--dir", dir.toString(), b3));
            assertTrue(RackAccess.awaitApi(rack.sleds().get(3).api()));
            wait.until(d -> d.findElement(three).getDomAttribute("class").contains("state-up"));
            shot(web, shots.resolve("4-sled-back.png"));
            assertEquals("live", web.findElement(By.id("live")).getText());
        } finally {
            web.quit();
            // The sled rack restart started is this test's too.
            RackAccess.running(rack.sleds().get(3)).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private static void shot(WebDriver web, Path to) throws java.io.IOException {
        File f = ((TakesScreenshot) web).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
