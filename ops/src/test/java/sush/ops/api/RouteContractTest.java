package sush.ops.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.api.ContractRack.Answer;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import tools.jackson.databind.JsonNode;

/**
 * Every route of {@link ApiServer} through one contract (issue 37), on one sled of a real
 * daemon: without an identity a route answers 401 with a typed error and a challenge (a public
 * one answers without); a read token reads and is 403 {@code read-only} on everything else; a
 * body over the bound is 413; a malformed body or a bad parameter is a 400 whose answer names
 * it; a handler that fails inside (an entropy source that throws) is a typed 500; and none of
 * these changes the sled's state. {@link #table} is the one list of routes: a route added to
 * {@link ApiServer} and not to it fails {@link #theTableHoldsEveryRouteOfTheServer()}.
 */
class RouteContractTest {
    /** Where the route table is written, from the module's folder (Maven's and jt's working directory). */
    private static final Path SERVER_SOURCE = Path.of("src/main/java/sush/ops/api/ApiServer.java");

    @TempDir
    static Path dir;
    static ContractRack rack;
    /** The sled's state once set up: every refusal leaves it so. */
    static String before;

    @BeforeAll
    static void up() throws Exception {
        rack = new ContractRack(dir);
        before = rack.snapshot();
    }

    @AfterAll
    static void down() {
        if (rack != null) {
            rack.close();
        }
    }

    /** Who may ask a route. */
    enum Access {
        /** Anyone: no identity asked (probes, the page's files, the login's two). */
        PUBLIC,
        /** Any identity, a read token too (D-035: the rack's state, statuses, outputs, events). */
        READS,
        /** A signed request of an operator only: a read token is 403 {@code read-only}. */
        SIGNED
    }

    /** A request body made when the case runs (a login answers a fresh challenge). */
    @FunctionalInterface
    interface Body {
        String make() throws Exception;
    }

    /**
     * A request with one thing wrong: its path (with its query) and body, the name its 400 must
     * give, and, when the product does not do so yet, the gap as found (the case is then skipped
     * with the actual answer, and fails once the gap is closed, so that its mark is taken off).
     */
    record Bad(String field, String path, String body, Map<String, String> headers, Optional<String> knownGap) {
    }

    /**
     * One route of the table: its method and template as {@link ApiServer} binds it, a path with
     * real ids, who may ask it, the body a public route is asked with, whether it reads a body
     * (413 past the bound), whether it draws on the sled's entropy (a typed 500 when that fails),
     * and its 400 cases.
     */
    record Route(String method, String template, String path, Access access, Body publicBody, boolean takesBody,
            boolean usesEntropy, List<Bad> bad) {
        static Route open(String method, String template, String path, Body publicBody) {
            return new Route(method, template, path, Access.PUBLIC, publicBody, false, false, List.of());
        }

        static Route guarded(String method, String template, String path, Access access) {
            // The gate reads every guarded request's body before anything else: each takes one.
            return new Route(method, template, path, access, () -> "", true, false, List.of());
        }

        Route body() {
            return new Route(method, template, path, access, publicBody, true, usesEntropy, bad);
        }

        Route entropy() {
            return new Route(method, template, path, access, publicBody, takesBody, true, bad);
        }

        Route bad(String field, String badPath, String body) {
            return bad(new Bad(field, badPath, body, Map.of(), Optional.empty()));
        }

        Route bad(Bad b) {
            List<Bad> all = new ArrayList<>(bad);
            all.add(b);
            return new Route(method, template, path, access, publicBody, takesBody, usesEntropy, List.copyOf(all));
        }

        String name() {
            return method + " " + template;
        }
    }

    /** Every route of {@link ApiServer}, with the rack's real ids filled in. */
    static List<Route> table(ContractRack r) {
        String sid = "/sessions/" + r.session;
        String job = Json.MAPPER.writeValueAsString(SignedRequests.toJson(r.nextJob));
        String notOne = "not-a-phrase";
        return List.of(
                Route.open("GET", "/health", "/health", () -> ""),
                Route.open("GET", "/ready", "/ready", () -> ""),
                Route.open("GET", "/metrics", "/metrics", () -> ""),
                Route.open("GET", "/", "/", () -> ""),
                Route.open("GET", "/web/{file}", "/web/app.js", () -> ""),
                Route.open("POST", "/login/challenge", "/login/challenge", () -> "").body()
                        .bad("body", "/login/challenge", "[1]"),
                Route.open("POST", "/login", "/login", r::loginBody).body()
                        .bad("nonce", "/login", "{\"key\": \"AA==\"}"),
                Route.guarded("GET", "/version", "/version", Access.READS),
                Route.guarded("GET", "/versions", "/versions", Access.READS),
                Route.guarded("GET", "/rack", "/rack", Access.READS),
                Route.guarded("GET", "/sessions", "/sessions", Access.READS),
                Route.guarded("POST", "/sessions/start", "/sessions/start", Access.SIGNED).entropy()
                        .bad("client_nonce", "/sessions/start", "{\"client_nonce\": 5}"),
                // A causal rack refuses every grant 409 wrong-ordering before it reads the body:
                // a grant's 400s need a signed rack (SignedRackTest).
                Route.guarded("POST", "/sessions/grant", "/sessions/grant", Access.SIGNED),
                Route.guarded("POST", "/sessions/{sid}/stop", sid + "/stop", Access.SIGNED)
                        .bad("session id", "/sessions/" + notOne + "/stop", ""),
                Route.guarded("GET", "/sessions/{sid}/chain", sid + "/chain", Access.SIGNED)
                        .bad("session id", "/sessions/" + notOne + "/chain", "")
                        .bad("after", sid + "/chain?after=" + notOne, ""),
                Route.guarded("POST", "/sessions/{sid}/skip/{jid}", sid + "/skip/" + r.next, Access.SIGNED)
                        .bad("session id", "/sessions/" + notOne + "/skip/" + r.next, "")
                        .bad("job id", sid + "/skip/" + notOne, ""),
                Route.guarded("POST", "/sessions/{sid}/access/{kid}", sid + "/access/" + r.otherKey + "?access=read",
                        Access.SIGNED)
                        .bad("session id", "/sessions/" + notOne + "/access/" + r.otherKey + "?access=read", "")
                        .bad("key id", sid + "/access/" + notOne + "?access=read", "")
                        .bad("access", sid + "/access/" + r.otherKey + "?access=all", ""),
                Route.guarded("POST", "/jobs/{jid}/start", "/jobs/" + r.next + "/start", Access.SIGNED)
                        .bad("job id", "/jobs/" + notOne + "/start", job)
                        .bad("concurrent", "/jobs/" + r.next + "/start", job.replace("\"concurrent\":false",
                                "\"concurrent\":\"no\"")),
                Route.guarded("POST", "/jobs/{jid}/stop", "/jobs/" + r.done + "/stop", Access.SIGNED)
                        .bad("job id", "/jobs/" + notOne + "/stop", ""),
                Route.guarded("POST", "/jobs/{jid}/skip-sled/{cubby}", "/jobs/" + r.done + "/skip-sled/1", Access.SIGNED)
                        .bad("job id", "/jobs/" + notOne + "/skip-sled/1", "")
                        .bad("cubby", "/jobs/" + r.done + "/skip-sled/40", ""),
                Route.guarded("GET", "/jobs/{jid}/status", "/jobs/" + r.done + "/status", Access.READS)
                        .bad("job id", "/jobs/" + notOne + "/status", ""),
                Route.guarded("GET", "/jobs/{jid}/output/{stream}", "/jobs/" + r.done + "/output/stdout", Access.READS)
                        .bad("job id", "/jobs/" + notOne + "/output/stdout", ""),
                Route.guarded("GET", "/jobs/{jid}/attach", "/jobs/" + r.done + "/attach", Access.SIGNED)
                        .bad("job id", "/jobs/" + notOne + "/attach", ""),
                Route.guarded("GET", "/jobs/{jid}/stream", "/jobs/" + r.done + "/stream", Access.SIGNED)
                        .bad("job id", "/jobs/" + notOne + "/stream", ""),
                Route.guarded("GET", "/jobs", "/jobs", Access.READS)
                        .bad("limit", "/jobs?limit=0", "")
                        .bad("offset", "/jobs?offset=-1", "")
                        .bad("session", "/jobs?session=" + notOne, ""),
                Route.guarded("GET", "/jobs/{jid}/receipts", "/jobs/" + r.done + "/receipts", Access.READS)
                        .bad("job id", "/jobs/" + notOne + "/receipts", ""),
                Route.guarded("GET", "/sessions/{sid}/receipts", sid + "/receipts", Access.READS)
                        .bad("session id", "/sessions/" + notOne + "/receipts", ""),
                Route.guarded("GET", "/certificate", "/certificate", Access.READS),
                Route.guarded("GET", "/plan", "/plan?target=*", Access.READS)
                        .bad("target", "/plan?target=40", "")
                        .bad("wave_size", "/plan?target=0&wave_size=x", ""),
                Route.guarded("GET", "/boundary", "/boundary", Access.READS),
                Route.guarded("GET", "/iam", "/iam", Access.SIGNED),
                Route.guarded("GET", "/trust", "/trust", Access.SIGNED),
                Route.guarded("POST", "/trust", "/trust", Access.SIGNED).bad("add", "/trust", "{\"add\": 1}"),
                Route.guarded("POST", "/iam/revoke/{kid}", "/iam/revoke/" + r.otherKey, Access.SIGNED).entropy()
                        .bad("key id", "/iam/revoke/" + notOne, ""),
                Route.guarded("POST", "/iam/unrevoke/{kid}", "/iam/unrevoke/" + r.otherKey, Access.SIGNED)
                        .bad("key id", "/iam/unrevoke/" + notOne, ""),
                Route.guarded("GET", "/events", "/events", Access.READS)
                        .bad(new Bad("Last-Event-ID", "/events", "", Map.of("Last-Event-ID", "soon"),
                                Optional.empty())));
    }

    /** The table and {@link ApiServer}'s route table name the same routes. */
    @Test
    void theTableHoldsEveryRouteOfTheServer() throws Exception {
        Matcher m = Pattern.compile("\\.(get|post|put|delete|patch|route)\\(\"([^\"]+)\"")
                .matcher(Files.readString(SERVER_SOURCE));
        Set<String> served = new TreeSet<>();
        while (m.find()) {
            served.add(m.group(1).toUpperCase(Locale.ROOT) + " " + m.group(2));
        }
        Set<String> tabled = table(rack).stream().map(Route::name).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(served, tabled, "a route of ApiServer without its row here, or a row of no route");
    }

    /** Each route's cases, one dynamic test each, then the sled's state checked once more after them all. */
    @TestFactory
    Stream<DynamicNode> everyRouteKeepsTheContract() {
        List<DynamicNode> all = new ArrayList<>();
        for (Route r : table(rack)) {
            all.add(dynamicContainer(r.name(), cases(r)));
        }
        all.add(dynamicTest("after every refusal: the sled's state is as before, its loop unfailed", () -> {
            Thread.sleep(300);
            assertEquals(before, rack.snapshot(), "a refusal changed the sled's state (by gossip)");
            assertEquals(Optional.empty(), rack.daemon.runtime().failure());
        }));
        return all.stream();
    }

    private static Stream<DynamicNode> cases(Route r) {
        List<DynamicNode> out = new ArrayList<>();
        String post = r.method().equals("POST") ? "{}" : "";
        if (r.access() == Access.PUBLIC) {
            out.add(dynamicTest("answers without identity", unchanged(r, () -> {
                Answer a = rack.unsigned(r.method(), r.path(), r.publicBody().make(), Map.of());
                assertEquals(200, a.status(), a.body());
            })));
        } else {
            out.add(dynamicTest("401 without identity", unchanged(r, () -> {
                Answer a = rack.unsigned(r.method(), r.path(), post, Map.of());
                typed(a, 401, "login-required");
                assertTrue(a.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Sush nonce="),
                        "a fresh challenge: " + a.headers().map());
            })));
            out.add(dynamicTest(r.access() == Access.READS ? "a read token reads: 200" : "403 with a read token",
                    unchanged(r, () -> {
                        Answer a = rack.withToken(r.method(), r.path(), post);
                        if (r.access() == Access.READS) {
                            assertEquals(200, a.status(), a.body());
                        } else {
                            typed(a, 403, "read-only");
                        }
                    })));
        }
        if (r.takesBody()) {
            out.add(dynamicTest("413 past the body's bound", unchanged(r, () -> {
                String big = "x".repeat(SignedRequests.MAX_BODY_BYTES + 1);
                typed(ask(r, r.method(), r.path(), big, Map.of()), 413, "body-too-large");
            })));
        }
        for (Bad b : r.bad()) {
            out.add(dynamicTest("400 naming " + b.field() + b.knownGap().map(g -> " (known gap)").orElse(""),
                    unchanged(r, () -> knownGap(b.knownGap(), () -> {
                        Answer a = ask(r, r.method(), b.path(), b.body(), b.headers());
                        JsonNode n = typed(a, 400, null);
                        assertTrue(n.path("message").asString("").contains(b.field())
                                || n.path("field").asString("").contains(b.field()), "names " + b.field() + ": "
                                        + a.body());
                    }))));
        }
        if (r.usesEntropy()) {
            out.add(dynamicTest("500 when the sled's entropy fails", unchanged(r, () -> {
                Answer a = ContractRack.signed(rack.faulty, r.method(), r.path(), post, Map.of());
                typed(a, 500, "internal");
            })));
        }
        return out.stream();
    }

    /** Asks as the route's callers do: a public route unsigned, any other signed by the operator. */
    private static Answer ask(Route r, String method, String path, String body, Map<String, String> headers)
            throws Exception {
        return r.access() == Access.PUBLIC ? rack.unsigned(method, path, body, headers)
                : rack.signed(method, path, body, headers);
    }

    /** {@code check}, and then the sled's state as it was before it (every case of a route that changes state). */
    private static Executable unchanged(Route r, Executable check) {
        return () -> {
            check.execute();
            if (r.method().equals("POST")) {
                assertEquals(before, rack.snapshot(), "the refused request changed the sled's state");
            }
        };
    }

    /**
     * {@code check} of a case: as it is when the case has no known gap; with one, skipped with the
     * actual answer while it fails, and a failure once it holds (the gap is closed: unmark it).
     */
    private static void knownGap(Optional<String> gap, Executable check) throws Throwable {
        if (gap.isEmpty()) {
            check.execute();
            return;
        }
        try {
            check.execute();
        } catch (AssertionError e) {
            Assumptions.abort("known gap: " + gap.get() + "; actual: " + e.getMessage());
        }
        fail("the known gap '" + gap.get() + "' is closed: take its mark off the table");
    }

    /** Asserts a typed error: {@code status}, JSON, an {@code error} code ({@code code} when given) and a message. */
    private static JsonNode typed(Answer a, int status, String code) {
        assertEquals(status, a.status(), a.body());
        assertTrue(a.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                a.headers().map().toString());
        JsonNode n = Json.MAPPER.readTree(a.body());
        assertTrue(n.path("error").isString() && !n.path("error").asString().isEmpty(), "a typed error: " + a.body());
        assertTrue(n.path("message").isString() && !n.path("message").asString().isEmpty(), "a message: " + a.body());
        if (code != null) {
            assertEquals(code, n.get("error").asString(), a.body());
        }
        return n;
    }
}
