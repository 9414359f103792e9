package sush.ops.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code sush job attach}: attaches this terminal to an interactive job, the one named or the last
 * one started from this account.
 */
@Command(name = "attach", description = "Attach this terminal to an interactive job's terminal: what it shows "
        + "appears here (the last 64 KiB first), what you type goes to it if you started its session; Ctrl-] "
        + "detaches and the job goes on. Exits with the job when it ends (0, or 5 when its exit is not 0).")
final class JobAttachCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Parameters(arity = "0..1", paramLabel = "ID", description = "the job's id (default: the last job started "
            + "from this account)")
    String id;

    @Override
    public Integer call() {
        try {
            String job = id != null ? JobCommand.jobId(id).codephrase() : OneSledJobs.last(g);
            return OneSledJobs.attachTo(g, job);
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
