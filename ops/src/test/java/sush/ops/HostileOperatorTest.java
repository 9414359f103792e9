package sush.ops;

import sush.ops.wire.Json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import sush.ops.auth.OperatorSigner;
import sush.projections.fold.Ordering;

/**
 * Issue 36's hostile operator, item 1 (security.md section 5): every request the real CLI sends
 * to one sled, captured by a recording proxy in front of it, is replayed to every other sled of
 * a 3-sled signed rack of real daemons: none is accepted. On the code before audience-bound
 * signatures, requests replayed at the other sleds were accepted (each sled kept its own
 * sequence window and the signed bytes named no sled).
 */
class HostileOperatorTest {
    static final int SLEDS = 3;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    @TempDir
    Path dir;
    LocalRack rack;
    HttpServer proxy;
    String stateBefore;
    String cacheBefore;
    final List<Captured> captured = java.util.Collections.synchronizedList(new ArrayList<>());

    /** One request as the CLI sent it. */
    record Captured(String method, String target, String authorization, byte[] body) {
    }

    @BeforeEach
    void up() throws Exception {
        stateBefore = System.getProperty("sush.state");
        cacheBefore = System.getProperty("sush.cache");
        System.setProperty("sush.state", dir.resolve("state").toString());
        System.setProperty("sush.cache", dir.resolve("cache").toString());
        rack = new LocalRack(dir.resolve("rack"), SLEDS, Ordering.SIGNED);
        rack.converge();
        proxy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        proxy.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        proxy.createContext("/", this::forward);
        proxy.start();
    }

    @AfterEach
    void down() {
        if (proxy != null) {
            proxy.stop(0);
        }
        if (rack != null) {
            rack.close();
        }
        restore("sush.state", stateBefore);
        restore("sush.cache", cacheBefore);
    }

    private static void restore(String property, String before) {
        if (before == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, before);
        }
    }

    /** The proxy: records the request, forwards it to sled 0, streams the answer back. */
    private void forward(HttpExchange x) throws IOException {
        byte[] body = x.getRequestBody().readAllBytes();
        String target = x.getRequestURI().toString();
        String auth = x.getRequestHeaders().getFirst("Authorization");
        captured.add(new Captured(x.getRequestMethod(), target, auth, body));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(rack.url(0) + target)).method(x.getRequestMethod(),
                body.length == 0 && x.getRequestMethod().equals("GET") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        for (String h : new String[] {"Authorization", "Range", "Content-Type", "Accept"}) {
            String v = x.getRequestHeaders().getFirst(h);
            if (v != null) {
                b.header(h, v);
            }
        }
        try {
            HttpResponse<InputStream> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            for (String h : new String[] {"Content-Type", "Content-Range", "WWW-Authenticate"}) {
                r.headers().firstValue(h).ifPresent(v -> x.getResponseHeaders().set(h, v));
            }
            x.sendResponseHeaders(r.statusCode(), 0);
            try (InputStream in = r.body(); OutputStream out = x.getResponseBody()) {
                byte[] buf = new byte[8192];
                for (int n; (n = in.read(buf)) > 0;) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            x.sendResponseHeaders(502, -1);
        } catch (IOException e) {
            x.close();
        }
    }

    private CliRun cli(String... args) {
        List<String> line = new ArrayList<>(List.of(args));
        line.addAll(Math.min(2, line.size()), List.of("--url", "http://127.0.0.1:" + proxy.getAddress().getPort(),
                "--operator-key", rack.dir.resolve("operator.key").toString(), "--key",
                rack.dir.resolve("signer.key").toString()));
        CliRun r = CliRun.of(line.toArray(String[]::new));
        return r;
    }

    @Test
    void noRequestTheCliSendsToOneSledIsAcceptedAtAnyOther() throws Exception {
        OperatorSigner other = OperatorSigner.generate(dir.resolve("other"), "other", new SecureRandom());
        String otherKey = other.publicKey().id().codephrase();
        assertEquals(0, cli("login").exit());
        assertEquals(0, cli("session", "start", "--wait").exit());
        CliRun start = cli("job", "start", "--json", "--wait", "--", "echo hostile");
        assertEquals(0, start.exit(), start.out() + start.err());
        String job = Json.MAPPER.readTree(start.lastLine()).get("job_id").asString();
        String board1 = rack.rack.sleds().get(1).baseboard();
        for (String[] line : new String[][] {{"job", "status", job}, {"job", "output", job, "--sled", board1},
                {"job", "history"}, {"session", "allow", otherKey, "--write"}, {"session", "deny", otherKey},
                {"session", "status"}, {"iam", "list"}, {"boundary"}, {"version"}, {"whoami"},
                {"job", "stop", job}}) {
            CliRun r = cli(line);
            assertTrue(r.exit() == 0 || line[0].equals("job") && line[1].equals("stop"), String.join(" ", line) + ": "
                    + r.out() + r.err());
        }
        List<Captured> signed = new ArrayList<>();
        for (Captured c : List.copyOf(captured)) {
            if (c.authorization() != null && c.authorization().startsWith("Sush ")) {
                signed.add(c);
            }
        }
        Set<String> kinds = new java.util.TreeSet<>();
        signed.forEach(c -> kinds.add(c.method() + " " + c.target().replaceAll("\\?.*", "")));
        assertTrue(signed.size() >= 15 && kinds.stream().anyMatch(k -> k.contains("/access/"))
                && kinds.stream().anyMatch(k -> k.startsWith("POST /jobs/")), "the CLI's requests were captured: "
                        + kinds);
        List<String> accepted = new ArrayList<>();
        for (Captured c : signed) {
            for (int sled = 1; sled < SLEDS; sled++) {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(rack.url(sled) + c.target()))
                        .timeout(Duration.ofSeconds(10)).method(c.method(), c.body().length == 0
                                && c.method().equals("GET") ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofByteArray(c.body()))
                        .header("Authorization", c.authorization());
                if (!c.method().equals("GET")) {
                    b.header("Content-Type", "application/json");
                }
                // The status is the verdict; the body is not read (an accepted event stream never ends).
                HttpResponse<InputStream> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
                r.body().close();
                if (r.statusCode() < 400) {
                    accepted.add(c.method() + " " + c.target() + " at sled " + sled + ": " + r.statusCode());
                }
            }
        }
        assertEquals(List.of(), accepted, "replayed at another sled and accepted (of " + signed.size() * (SLEDS - 1)
                + " replays)");
    }
}
