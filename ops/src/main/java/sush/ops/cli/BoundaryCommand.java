package sush.ops.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import sush.ops.wire.Boundary;
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
            g.print(b, render(Client.read(b, Boundary.class)));
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }

    static String render(Boundary b) {
        StringBuilder s = new StringBuilder();
        s.append("sled        ").append(Said.text(b.baseboard())).append('\n');
        s.append("slots       ").append(Said.text(b.load())).append(Said.flag(b.trusted()) ? " (trusted)"
                : " (UNTRUSTED: " + Said.text(b.loadReason()) + ")").append('\n');
        // A sled from before orderings says none: its record is a causal one.
        String ordering = Said.text(b.ordering(), "causal");
        s.append("ordering    ").append(ordering).append('\n');
        return "signed".equals(ordering) ? signed(s, b) : causal(s, b);
    }

    /** Ordered-sessions.md section 3: a floor epoch and the last committed job, no universe. */
    private static String signed(StringBuilder s, Boundary b) {
        Boundary.Record r = b.record();
        if (r == null) {
            return s.append("floor       none\nrecord      none (not provisioned: nothing runs here until "
                    + "`sush locker provision --ordering signed --floor-epoch E`)").toString();
        }
        s.append("floor       epoch ").append(Said.number(r.floorEpoch())).append(" (sessions at or below it are "
                + "refused)\n");
        Boundary.Committed c = r.committed();
        if (c == null) {
            return s.append("committed   nothing").toString();
        }
        return s.append("committed   ").append(Said.text(c.job())).append(" (").append(Said.text(c.outcome()))
                .append(")\n  session   ").append(Said.text(c.session())).append("\n  epoch     ")
                .append(Said.number(c.epoch())).append("\n  signer    ").append(Said.text(c.signer()))
                .append("\n  successor ").append(Said.text(c.successor())).toString();
    }

    private static String causal(StringBuilder s, Boundary b) {
        JsonNode floor = b.floor();
        s.append("floor       ").append(floor != null && floor.isNull() ? "none" : floor == null ? ""
                : floor.asString()).append('\n');
        Boundary.Record r = b.record();
        if (r == null) {
            return s.append("record      none (never committed, not provisioned)").toString();
        }
        s.append("universe    ").append(Said.text(r.network())).append('\n');
        s.append("executed    ").append(Said.text(r.executed())).append('\n');
        Boundary.Committed c = r.committed();
        if (c == null) {
            s.append("committed   nothing\n");
        } else {
            s.append("committed   ").append(Said.text(c.job())).append(" (").append(Said.text(c.outcome()))
                    .append(")\n  session   ").append(Said.text(c.session())).append("\n  successor ")
                    .append(Said.text(c.successor())).append('\n');
        }
        s.append("recent      ").append(r.recent() == null ? 0 : r.recent().size()).append(" universes; Bloom filter ")
                .append(Said.number(r.bloomBitsSet())).append("/8192 bits set\n");
        s.append("amnesiac    ").append(Said.flag(r.amnesiac()));
        return s.toString();
    }
}
