package sush.ops.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code sush watch}: follows the rack's event stream through one sled. */
@Command(name = "watch", description = "Follow every status change and error the sled sees.")
public final class WatchCommand implements Callable<Integer> {
    @Mixin
    Global g;

    @Override
    public Integer call() {
        try {
            g.client().follow(ev -> {
                System.out.println(g.json ? ev.toString() : ev.path("job_id").asString(ev.path("error").asString())
                        + "  " + Client.printable(ev.path("baseboard").asString(ev.path("sled").asString())) + "  " + JobStatuses.line(ev));
                return false;
            });
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
