package sush.ops;

import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import sush.ops.cli.BoundaryCommand;
import sush.ops.cli.DaemonCommand;
import sush.ops.cli.DemoCommand;
import sush.ops.cli.IamCommand;
import sush.ops.cli.JobCommand;
import sush.ops.cli.LoginCommand;
import sush.ops.cli.KeygenCommand;
import sush.ops.cli.LockerCommand;
import sush.ops.cli.RackCommand;
import sush.ops.cli.ReplayCommand;
import sush.ops.cli.SessionCommand;
import sush.ops.cli.SignerCommand;
import sush.ops.cli.SimulateCommand;
import sush.ops.cli.StatusCommand;
import sush.ops.cli.VersionCommand;
import sush.ops.cli.WatchCommand;

/** {@code sush}: the daemon and the operator's client (interfaces.md, "CLI client"). */
@Command(name = "sush", mixinStandardHelpOptions = true, version = "sush 0.1.0",
        description = "Runs signed operator jobs on the sleds of a rack, at most once per sled.",
        subcommands = {DaemonCommand.class, SessionCommand.class, JobCommand.class, BoundaryCommand.class,
                WatchCommand.class, VersionCommand.class, StatusCommand.class, LockerCommand.class, KeygenCommand.class, SignerCommand.class, ReplayCommand.class,
                SimulateCommand.class, RackCommand.class, DemoCommand.class, LoginCommand.class, IamCommand.class})
public final class Main implements Callable<Integer> {
    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 0;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line; its exit code. */
    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            System.err.println("sush: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        });
        return cl.execute(args);
    }
}
