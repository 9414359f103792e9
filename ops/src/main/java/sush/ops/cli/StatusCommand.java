package sush.ops.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import sush.ops.daemon.RackFile;
import sush.ops.wire.Health;
import sush.ops.wire.Readiness;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush status}: every sled's {@code /health} and {@code /ready}, one line each (the
 * sleds of the local rack file, else the one sled of {@code --url}). Exits 0 when every sled is
 * healthy and ready, 1 otherwise.
 */
@Command(name = "status", description = "Show every sled's health and readiness (exit 0 when all are ready).")
public final class StatusCommand implements Callable<Integer> {
    @Mixin
    Global g;

    @Override
    public Integer call() {
        List<Object> docs = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        boolean allReady = true;
        Optional<RackFile> rack = g.localRack();
        List<String[]> sleds = new ArrayList<>();
        Optional<RacksFile.Rack> named;
        try {
            named = g.url == null ? g.namedRack() : Optional.empty();
        } catch (Client.Failure f) {
            return g.fail(f);
        }
        if (named.isPresent()) {
            // A rack of the racks file (issue 41): each of its APIs, by URL.
            named.get().urls().forEach(u -> sleds.add(new String[] {u, u}));
        } else if (rack.isPresent() && g.url == null && g.invocation().getenv("SUSH_URL") == null) {
            rack.get().sleds().forEach(s -> sleds.add(new String[] {s.baseboard(), rack.get().apiUrl(s)}));
        } else {
            sleds.add(new String[] {null, null});
        }
        for (String[] sled : sleds) {
            Map<String, Object> doc = new LinkedHashMap<>();
            String line;
            try {
                Client c = sled[1] == null ? g.client() : g.client(sled[1]);
                Client.Probe health = c.probe("/health");
                Client.Probe ready = c.probe("/ready");
                doc.put("health", health.body());
                doc.put("ready", ready.body());
                boolean ok = health.status() == 200 && ready.status() == 200;
                allReady &= ok;
                line = render(health.health(), ready.readiness());
            } catch (Client.Failure f) {
                allReady = false;
                doc.put("error", f.getMessage());
                line = "UNREACHABLE  " + f.getMessage();
            }
            doc.put("sled", sled[0]);
            docs.add(doc);
            text.append(sled[0] == null ? "" : String.format("%-28s ", Client.printable(sled[0]))).append(line)
                    .append('\n');
        }
        g.print(Map.of("sleds", docs, "all_ready", allReady), text.toString().stripTrailing());
        return allReady ? 0 : 1;
    }

    static String render(Health health, Readiness ready) {
        StringBuilder b = new StringBuilder();
        b.append(Said.text(health.status(), "?").toUpperCase(Locale.ROOT)).append(' ');
        b.append(Said.flag(ready.ready()) ? "ready" : "NOT READY");
        JsonNode floor = ready.floor();
        b.append(String.format(Locale.ROOT, "  store %s, peers %d/%d, floor %s, pending %d, set %.1f%%",
                Said.flag(ready.storeTrusted()) ? "trusted" : "UNTRUSTED", Said.number(ready.peersConnected()),
                Said.number(ready.peersExpected()), floor != null && floor.isNull() ? "none"
                        : floor == null ? "" : floor.asString(), Said.number(ready.pendingLaunches()),
                100 * Said.number(ready.setFill())));
        for (String r : ready.reasons() == null ? List.<String>of() : ready.reasons()) {
            b.append("\n    ").append(Client.printable(Said.text(r)));
        }
        return b.toString();
    }
}
