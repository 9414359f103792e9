package sush.ops.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import tools.jackson.databind.JsonNode;

/** {@code sush boundary}: a sled's boundary record, trust state and floor, readably. */
@Command(name = "boundary", description = "Show a sled's boundary record, trust state and floor.")
public final class BoundaryCommand implements Callable<Integer> {
    @Mixin
    Global g;

    @Override
    public Integer call() {
        try {
            JsonNode b = g.client().get("/boundary");
            g.print(b, render(b));
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }

    static String render(JsonNode b) {
        StringBuilder s = new StringBuilder();
        s.append("sled        ").append(b.path("baseboard").asString()).append('\n');
        s.append("slots       ").append(b.path("load").asString()).append(b.path("trusted").asBoolean() ? " (trusted)"
                : " (UNTRUSTED: " + b.path("load_reason").asString() + ")").append('\n');
        // A sled from before orderings says none: its record is a causal one.
        String ordering = b.path("ordering").asString("causal");
        s.append("ordering    ").append(ordering).append('\n');
        return "signed".equals(ordering) ? signed(s, b) : causal(s, b);
    }

    /** Ordered-sessions.md section 3: a floor epoch and the last committed job, no universe. */
    private static String signed(StringBuilder s, JsonNode b) {
        JsonNode r = b.path("record");
        if (r.isNull() || r.isMissingNode()) {
            return s.append("floor       none\nrecord      none (not provisioned: nothing runs here until "
                    + "`sush locker provision --ordering signed --floor-epoch E`)").toString();
        }
        s.append("floor       epoch ").append(r.path("floor_epoch").asLong()).append(" (sessions at or below it are "
                + "refused)\n");
        JsonNode c = r.path("committed");
        if (c.isNull() || c.isMissingNode()) {
            return s.append("committed   nothing").toString();
        }
        return s.append("committed   ").append(c.path("job").asString()).append(" (").append(c.path("outcome")
                .asString()).append(")\n  session   ").append(c.path("session").asString()).append("\n  epoch     ")
                .append(c.path("epoch").asLong()).append("\n  signer    ").append(c.path("signer").asString())
                .append("\n  successor ").append(c.path("successor").asString()).toString();
    }

    private static String causal(StringBuilder s, JsonNode b) {
        s.append("floor       ").append(b.path("floor").isNull() ? "none" : b.path("floor").asString()).append('\n');
        JsonNode r = b.path("record");
        if (r.isNull() || r.isMissingNode()) {
            return s.append("record      none (never committed, not provisioned)").toString();
        }
        s.append("universe    ").append(r.path("network").asString()).append('\n');
        s.append("executed    ").append(r.path("executed").asString()).append('\n');
        JsonNode c = r.path("committed");
        if (c.isNull()) {
            s.append("committed   nothing\n");
        } else {
            s.append("committed   ").append(c.path("job").asString()).append(" (").append(c.path("outcome").asString())
                    .append(")\n  session   ").append(c.path("session").asString()).append("\n  successor ")
                    .append(c.path("successor").asString()).append('\n');
        }
        s.append("recent      ").append(r.path("recent").size()).append(" universes; Bloom filter ")
                .append(r.path("bloom_bits_set").asInt()).append("/8192 bits set\n");
        s.append("amnesiac    ").append(r.path("amnesiac").asBoolean());
        return s.toString();
    }
}
