package sush.ops.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sush completion bash|zsh}: prints a completion script for every command and option,
 * generated from the command tree itself (picocli's {@code AutoComplete}), so it never falls
 * behind. Bash: {@code source <(sush completion bash)}; zsh: {@code autoload -U +X bashcompinit
 * && bashcompinit && source <(sush completion zsh)}.
 */
@Command(name = "completion", description = "Print a shell completion script: `source <(sush completion bash)`; "
        + "in zsh `autoload -U +X bashcompinit && bashcompinit && source <(sush completion zsh)`.")
public final class CompletionCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "bash or zsh (the script is the same: zsh reads it through "
            + "bashcompinit)")
    String shell;

    /** Where this command runs: its streams, and the directory its paths are relative to. */
    private final Invocation invocation;

    CompletionCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        if (!shell.equals("bash") && !shell.equals("zsh")) {
            invocation.err().println("sush completion: the shell is bash or zsh, not " + Client.printable(shell));
            return 2;
        }
        CommandLine root = spec.root().commandLine();
        invocation.out().print(picocli.AutoComplete.bash(spec.root().name(), root));
        return 0;
    }
}
