package sush.ops.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;

import sush.ops.Json;
import tools.jackson.databind.JsonNode;

/** The CLI's side of the HTTP API: JSON requests, typed failures, and the event stream. */
public final class Client {
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    public Client(String url) {
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    public String url() {
        return base;
    }

    /** A refusal or an unreachable sled, with the exit code a script can test. */
    public static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final int exit;
        final String code;

        Failure(int exit, String code, String message) {
            super(message);
            this.exit = exit;
            this.code = code;
        }

        public int exit() {
            return exit;
        }

        public String code() {
            return code;
        }
    }

    public JsonNode get(String path) throws Failure {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    public JsonNode post(String path, Object body) throws Failure {
        String json = body == null ? "" : Json.MAPPER.writeValueAsString(body);
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public byte[] bytes(String path) throws Failure {
        try {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri(path)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() >= 400) {
                throw refusal(r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
            }
            return r.body();
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(130, "interrupted", "interrupted");
        }
    }

    /**
     * Follows {@code /events} (reconnecting with Last-Event-ID) and hands each event's JSON to
     * {@code until}; returns when it says so.
     */
    public void follow(Predicate<JsonNode> until) throws Failure {
        String last = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri("/events")).GET();
            if (last != null) {
                b.header("Last-Event-ID", last);
            }
            try {
                HttpResponse<java.io.InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
                try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                    String line;
                    String data = null;
                    while ((line = in.readLine()) != null) {
                        if (line.startsWith("id: ")) {
                            last = line.substring(4);
                        } else if (line.startsWith("data: ")) {
                            data = line.substring(6);
                        } else if (line.isEmpty() && data != null) {
                            if (until.test(Json.MAPPER.readTree(data))) {
                                return;
                            }
                            data = null;
                        }
                    }
                }
            } catch (IOException e) {
                sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failure(130, "interrupted", "interrupted");
            }
        }
        throw new Failure(3, "unreachable", "lost the event stream of " + base);
    }

    private JsonNode send(HttpRequest.Builder b) throws Failure {
        try {
            HttpResponse<String> r = http.send(b.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() >= 400) {
                throw refusal(r.statusCode(), r.body());
            }
            return Json.MAPPER.readTree(r.body());
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(130, "interrupted", "interrupted");
        }
    }

    private Failure refusal(int status, String body) {
        try {
            JsonNode n = Json.MAPPER.readTree(body);
            return new Failure(status == 404 ? 4 : 2, n.path("error").asString("http-" + status),
                    n.path("message").asString(body));
        } catch (RuntimeException e) {
            return new Failure(2, "http-" + status, body);
        }
    }

    private Failure unreachable(IOException e) {
        return new Failure(3, "unreachable", "sled unreachable at " + base + " (" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); is the daemon running? (--url or SUSH_URL)");
    }

    private URI uri(String path) {
        return URI.create(base + path);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
