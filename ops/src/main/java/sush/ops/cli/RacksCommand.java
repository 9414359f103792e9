package sush.ops.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import sush.ops.auth.Credentials;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush racks} (issue 41): every rack of the racks file ({@link RacksFile}), asked at once,
 * each within {@link #BOUND_MILLIS}: how many of its APIs answer {@code /ready} (a 503 not-ready
 * is an answer: the sled is up), and the session active there (asked of the first that answered,
 * logged in as any command would be). A rack none of whose APIs answers in time is DOWN, with
 * why; a rack that answers but cannot be asked its session says why too.
 */
@Command(name = "racks", description = "The racks of your racks file (~/.config/sush/racks.json): each one reachable "
        + "or DOWN, and its active session, within 3 s.")
public final class RacksCommand implements java.util.concurrent.Callable<Integer> {
    /** Every rack's answer comes within this, reachable or not. */
    static final long BOUND_MILLIS = 2_800;

    @Mixin
    Global g;

    /** What one rack said. */
    record Seen(String name, int apis, int answered, String url, String session, String why) {
    }

    @Override
    public Integer call() {
        try {
            Path file = g.configDir().resolve(RacksFile.FILE);
            Map<String, RacksFile.Rack> racks = RacksFile.read(file);
            if (racks.isEmpty()) {
                g.print(Map.of("file", file.toString(), "racks", List.of()), "no racks in " + file + "; name them "
                        + "there, as {\"racks\": {\"lab\": {\"rack\": \"/path/to/rack.json\"}, \"far\": {\"urls\": "
                        + "[\"https://10.0.0.1:7200\"], \"ca\": \"/path/to/ca.crt\"}}}");
                return 0;
            }
            ExecutorService pool = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "sush-racks");
                t.setDaemon(true);
                return t;
            });
            try {
                Map<String, CompletableFuture<Seen>> asked = new LinkedHashMap<>();
                racks.forEach((name, rack) -> asked.put(name, CompletableFuture.supplyAsync(() -> look(rack, pool),
                        pool).completeOnTimeout(new Seen(name, rack.urls().size(), 0, null, null, "no answer within "
                                + BOUND_MILLIS + " ms"), BOUND_MILLIS, TimeUnit.MILLISECONDS)));
                List<Map<String, Object>> docs = new ArrayList<>();
                StringBuilder b = new StringBuilder(String.format("%-20s %-14s %-40s %s%n", "RACK", "REACHABLE",
                        "SESSION", "ASKED"));
                for (CompletableFuture<Seen> f : asked.values()) {
                    Seen s = f.join();
                    Map<String, Object> d = new LinkedHashMap<>();
                    d.put("rack", s.name());
                    d.put("apis", s.apis());
                    d.put("answered", s.answered());
                    d.put("url", s.url());
                    d.put("session", s.session());
                    d.put("why", s.why());
                    docs.add(d);
                    String reach = s.answered() == 0 ? "DOWN" : s.answered() + " of " + s.apis();
                    String session = s.answered() == 0 ? "-" : s.session() != null ? s.session()
                            : "? (" + Client.printable(String.valueOf(s.why())) + ")";
                    b.append(String.format("%-20s %-14s %-40s %s%n", s.name(), reach, session, s.answered() == 0
                            ? Client.printable(String.valueOf(s.why())) : s.url()));
                }
                g.print(Map.of("file", file.toString(), "racks", docs), b.toString().stripTrailing());
                return 0;
            } finally {
                pool.shutdownNow();
            }
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }

    /** Asks every API of {@code rack} at once; then the first that answered for the active session. */
    private Seen look(RacksFile.Rack rack, ExecutorService pool) {
        List<CompletableFuture<String>> probes = new ArrayList<>();
        for (String u : rack.urls()) {
            probes.add(CompletableFuture.supplyAsync(() -> {
                try {
                    client(rack, u).probe("/ready");
                    return null;
                } catch (Client.Failure f) {
                    return f.getMessage();
                }
            }, pool));
        }
        String first = null;
        String why = null;
        int answered = 0;
        for (int i = 0; i < probes.size(); i++) {
            String failed = probes.get(i).join();
            if (failed == null) {
                answered++;
                first = first == null ? rack.urls().get(i) : first;
            } else if (why == null) {
                why = failed;
            }
        }
        if (first == null) {
            return new Seen(rack.name(), rack.urls().size(), 0, null, null, why);
        }
        try {
            JsonNode s = client(rack, first).get("/sessions");
            String id = s.path("session_id").isString() ? s.get("session_id").asString() : "none";
            return new Seen(rack.name(), rack.urls().size(), answered, first, id, null);
        } catch (Client.Failure f) {
            return new Seen(rack.name(), rack.urls().size(), answered, first, null, f.getMessage());
        }
    }

    /** A client of {@code url} of {@code rack}: its CA for https, this command's operator key, one login per URL. */
    private Client client(RacksFile.Rack rack, String url) throws Client.Failure {
        Credentials creds = new Credentials(Credentials.fromEnvironment(g.operatorKey, g.invocation().env(),
                g.invocation().cwd()), Optional.of(g.identityCache(url)));
        if (!url.startsWith("https://")) {
            return new Client(url, creds);
        }
        return new Client(url, creds, Client.trusting(rack.ca().orElseThrow()));
    }
}
