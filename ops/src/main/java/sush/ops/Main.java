package sush.ops;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine;
import sush.ops.cli.BoundaryCommand;
import sush.ops.cli.AuditCommand;
import sush.ops.cli.CompletionCommand;
import sush.ops.cli.DaemonCommand;
import sush.ops.cli.DemoCommand;
import sush.ops.cli.IamCommand;
import sush.ops.cli.Invocation;
import sush.ops.cli.JobCommand;
import sush.ops.cli.KeygenCommand;
import sush.ops.cli.LockerCommand;
import sush.ops.cli.LoginCommand;
import sush.ops.cli.ManCommand;
import sush.ops.cli.RackCommand;
import sush.ops.cli.RacksCommand;
import sush.ops.cli.ReplayCommand;
import sush.ops.cli.SessionCommand;
import sush.ops.cli.SignerCommand;
import sush.ops.cli.SimulateCommand;
import sush.ops.cli.StatusCommand;
import sush.ops.cli.TrustCommand;
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
            "  7    an audit bundle did not verify (`sush audit verify` names each problem)",
            "  70   the daemon's sled failed closed (its supervisor restarts it)",
            "  130  interrupted"},
        subcommands = {DaemonCommand.class, SessionCommand.class, JobCommand.class, BoundaryCommand.class,
                WatchCommand.class, VersionCommand.class, StatusCommand.class, LockerCommand.class, KeygenCommand.class, SignerCommand.class, ReplayCommand.class,
                SimulateCommand.class, RackCommand.class, DemoCommand.class, LoginCommand.class, IamCommand.class,
                CompletionCommand.class, ManCommand.class, AuditCommand.class, RacksCommand.class, ShellCommand.class,
                TrustCommand.class})
public final class Main implements Callable<Integer> {
    private final Invocation invocation;

    Main(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        new CommandLine(this, invocation.factory()).usage(invocation.out());
        return 0;
    }

    public static void main(String[] args) {
        System.exit(run(Invocation.system(), args));
    }

    /** The build's version and commit ({@link Version}), for {@code sush --version}. */
    static final class BuildVersion implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"sush " + Version.SOFTWARE};
        }
    }

    /** Runs a command line in the process's own invocation ({@link Invocation#system()}); its exit code. */
    public static int run(String... args) {
        return run(Invocation.system(), args);
    }

    /**
     * Runs a command line in {@code invocation} (its environment, directory and streams), in this
     * JVM; its exit code. {@link #main} is this with the process's own.
     */
    public static int run(Invocation invocation, String... args) {
        CommandLine cl = commandLine(invocation);
        args = GlobalOptions.hoist(cl.getCommandSpec(), args);
        return cl.execute(args);
    }

    /**
     * The command tree of {@code sush} in {@code invocation}: every command made with it, picocli's
     * own help and usage errors on its streams, an unexpected error one line on its stderr (exit 1).
     */
    static CommandLine commandLine(Invocation invocation) {
        CommandLine cl = new CommandLine(new Main(invocation), invocation.factory());
        cl.setOut(writer(invocation.out(), "sun.stdout.encoding"));
        cl.setErr(writer(invocation.err(), "sun.stderr.encoding"));
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            invocation.err().println("sush: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        });
        return cl;
    }

    /**
     * A writer on {@code stream} as picocli makes its own on {@code System.out} and {@code
     * System.err}: in the encoding the JVM names for that stream ({@code encodingProperty}), else
     * the default one; flushed at each line.
     */
    private static PrintWriter writer(PrintStream stream, String encodingProperty) {
        String name = System.getProperty(encodingProperty);
        Charset charset = Charset.defaultCharset();
        if (name != null) {
            try {
                charset = Charset.forName(name.equalsIgnoreCase("cp65001") ? "UTF-8" : name);
            } catch (IllegalArgumentException e) {
                // picocli falls back to the default encoding too
            }
        }
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
    }
}
