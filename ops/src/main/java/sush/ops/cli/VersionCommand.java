package sush.ops.cli;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import tools.jackson.databind.JsonNode;

/** {@code sush version}: the client, every sled known by gossip, and the rack drawn by cubby. */
@Command(name = "version", description = "Show the client's and every sled's version, and the rack by cubby.")
public final class VersionCommand implements Callable<Integer> {
    @Mixin
    Global g;

    @Override
    public Integer call() {
        try {
            JsonNode sleds = g.client().get("/versions").get("sleds");
            Map<Integer, String> byCubby = new TreeMap<>();
            java.util.List<String> differing = new java.util.ArrayList<>();
            sleds.forEach(s -> {
                String software = s.get("software").asString();
                byCubby.put(s.get("cubby").asInt(), (software.equals(sush.ops.Version.SOFTWARE) ? "" : "!")
                        + s.get("baseboard").asString() + " " + software);
                if (!software.equals(sush.ops.Version.SOFTWARE)) {
                    differing.add(Client.printable(s.get("baseboard").asString()) + " runs " + Client.printable(software));
                }
            });
            StringBuilder b = new StringBuilder("client " + sush.ops.Version.SOFTWARE + "\n");
            for (int row = 0; row < 32; row += 4) {
                StringBuilder line = new StringBuilder();
                for (int c = row; c < row + 4; c++) {
                    String s = byCubby.get(c);
                    line.append(String.format("[%2d %-28s]", c, s == null ? "." : s.length() > 28 ? s.substring(0, 28) : s));
                }
                b.append(line).append('\n');
            }
            if (!differing.isEmpty()) {
                b.append("! a build other than the client's (").append(sush.ops.Version.SOFTWARE).append("):\n");
                differing.forEach(d -> b.append("  ").append(d).append('\n'));
            }
            g.print(Map.of("client", sush.ops.Version.SOFTWARE, "version", sush.ops.Version.VERSION, "commit",
                    sush.ops.Version.COMMIT, "sleds", sleds, "differing", differing), b.toString().stripTrailing());
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
