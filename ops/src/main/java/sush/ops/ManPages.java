package sush.ops;

import java.io.IOException;
import java.nio.file.Path;

import sush.ops.cli.Invocation;
import sush.ops.cli.ManCommand;

/**
 * The build's entry for the man pages (exec-maven-plugin, in Maven's own JVM: it never exits):
 * every command's page into {@code args[0]}. It lives beside {@link Main}, the root of the
 * command tree, so that the CLI's package never names the launcher (no package cycle).
 */
public final class ManPages {
    private ManPages() {
    }

    public static void main(String[] args) throws IOException {
        int n = ManCommand.write(Main.commandLine(Invocation.system()).getCommandSpec(), Path.of(args[0]));
        System.out.println(n + " man pages written to " + args[0]);
    }
}
