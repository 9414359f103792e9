package sush.ops.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import sush.ops.wire.Event;
import sush.ops.wire.Json;

/** {@code sush watch}: follows the rack's event stream through one sled. */
@Command(name = "watch", description = "Follow every status change and error the sled sees.")
public final class WatchCommand implements Callable<Integer> {
    @Mixin
    Global g;

    @Override
    public Integer call() {
        try {
            g.client().follow(data -> {
                if (g.json) {
                    g.invocation().out().println(data.toString());
                    return false;
                }
                Event ev = Json.read(data, Event.class);
                g.invocation().out().println(Said.text(ev.jobId(), Said.text(ev.status().error())) + "  "
                        + Client.printable(Said.text(ev.baseboard(), Said.text(ev.sled()))) + "  "
                        + JobStatuses.line(ev.status()));
                return false;
            });
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
