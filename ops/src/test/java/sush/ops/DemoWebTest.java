package sush.ops;

import sush.ops.wire.Json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.RackCommand;

/**
 * `sush demo --web` (issue 20): the whole demo story as an operator runs it, with no warning in
 * it (issue 41), then the rack stays up and the printed address serves the page, whose read
 * token reads the rack; SIGTERM ends it.
 */
class DemoWebTest {
    @TempDir
    Path dir;

    @Test
    void theDemoLeavesTheRackUpForThePage() throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(RackCommand.JVM_FLAGS);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "sush.ops.Main", "demo", "--web", "--dir",
                dir.resolve("demo").toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("SUSH_") && !k.equals(RackCommand.DAEMON_JAVA_OPTS));
        Process p = pb.start();
        StringBuilder said = new StringBuilder();
        String url = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (url == null && (line = in.readLine()) != null) {
                said.append(line).append('\n');
                if (line.contains("/#token=")) {
                    url = line.strip();
                }
            }
            assertTrue(url != null, said.toString());
            assertTrue(said.toString().contains(" executions, none twice."), said.toString());
            // Issue 41: the story's restarts are expected, so they say no warning (stderr is merged here).
            assertTrue(said.toString().lines().noneMatch(l -> l.contains(" WARN ")), said.toString());
            String base = url.substring(0, url.indexOf("/#token="));
            String token = url.substring(url.indexOf("/#token=") + 8);
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("<title>sush rack</title>"), page.body());
            HttpResponse<String> versions = http.send(HttpRequest.newBuilder(URI.create(base + "/versions"))
                    .header("Authorization", "SushRead " + token).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, versions.statusCode(), versions.body());
            assertEquals(4, Json.MAPPER.readTree(versions.body()).get("sleds").size());
            HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(base + "/versions")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, none.statusCode(), "no token, no rack");
        } finally {
            p.destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "SIGTERM ends the demo");
            p.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }
}
