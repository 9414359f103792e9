package sush.ops;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine;
import sush.ops.cli.BoundaryCommand;
import sush.ops.cli.CompletionCommand;
import sush.ops.cli.DaemonCommand;
import sush.ops.cli.DemoCommand;
import sush.ops.cli.IamCommand;
import sush.ops.cli.JobCommand;
import sush.ops.cli.KeygenCommand;
import sush.ops.cli.LockerCommand;
import sush.ops.cli.LoginCommand;
import sush.ops.cli.ManCommand;
import sush.ops.cli.RackCommand;
import sush.ops.cli.ReplayCommand;
import sush.ops.cli.SessionCommand;
import sush.ops.cli.SignerCommand;
import sush.ops.cli.SimulateCommand;
import sush.ops.cli.StatusCommand;
import sush.ops.cli.VersionCommand;
import sush.ops.cli.WatchCommand;
import sush.ops.wire.Version;

/** {@code sush}: the daemon and the operator's client (interfaces.md, "CLI client"). */
@Command(name = "sush", mixinStandardHelpOptions = true, versionProvider = Main.BuildVersion.class,
        // Every subcommand takes --help (and --version) and shows the global options and exit codes.
        scope = CommandLine.ScopeType.INHERIT,
        description = "Runs signed operator jobs on the sleds of a rack, at most once per sled.",
        footerHeading = "%n",
        footer = {"Global options (before or after the subcommand, e.g. `sush --json session start` or "
                + "`sush session start --json`):",
            "  --url URL      a sled's API (env SUSH_URL; default http://127.0.0.1:7200)",
            "  --json         one JSON document instead of text",
            "  --key FILE     the signer's private key (env SUSH_SIGNER_KEY)",
            "",
            "Exit codes:",
            "  0    done (a job waited for ended with exit 0 on every targeted sled)",
            "  1    failed (local I/O, a request that could not be built, an unexpected error)",
            "  2    refused or bad input (usage, a bad key or id, the sled's refusal)",
            "  3    a sled could not be reached",
            "  4    not found (no such job, no active session)",
            "  5    a job waited for did not end with exit 0 on every targeted sled",
            "  6    a job's output did not match the hash in its status",
            "  70   the daemon's sled failed closed (its supervisor restarts it)",
            "  130  interrupted"},
        subcommands = {DaemonCommand.class, SessionCommand.class, JobCommand.class, BoundaryCommand.class,
                WatchCommand.class, VersionCommand.class, StatusCommand.class, LockerCommand.class, KeygenCommand.class, SignerCommand.class, ReplayCommand.class,
                SimulateCommand.class, RackCommand.class, DemoCommand.class, LoginCommand.class, IamCommand.class,
                CompletionCommand.class, ManCommand.class})
public final class Main implements Callable<Integer> {
    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 0;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** The build's version and commit ({@link Version}), for {@code sush --version}. */
    static final class BuildVersion implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"sush " + Version.SOFTWARE};
        }
    }

    /** Runs a command line; its exit code. */
    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        args = GlobalOptions.hoist(cl.getCommandSpec(), args);
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            System.err.println("sush: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        });
        return cl.execute(args);
    }
}
