package sush.ops.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.ops.signer.EpochFile;

/** {@code sush signer epoch}: a fresh epoch of the signer, reserved in its epoch file (ordered-sessions.md). */
@Command(name = "signer", description = "The signer's own state.", subcommands = SignerCommand.Epoch.class)
public final class SignerCommand implements Callable<Integer> {
    /** Where this command runs: its usage is printed on the invocation's standard output. */
    private final Invocation invocation;

    SignerCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    @Command(name = "epoch", description = "Issue and print a fresh epoch of the signer (max(now ms, last + 1), "
            + "fsynced in KEY.epoch before it is printed). Use it as `locker provision --floor-epoch` after a wipe.")
    static final class Epoch implements Callable<Integer> {
        @Option(names = "--key", description = "the signer's private key (env SUSH_SIGNER_KEY)")
        Path key;

        /** Where this command runs: its streams, its environment, the directory its paths are relative to. */
        private final Invocation invocation;

        Epoch(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() {
            Path k = Global.signerKeyFile(invocation, key);
            if (k == null) {
                invocation.err().println("sush: no signer key: pass --key FILE or set SUSH_SIGNER_KEY");
                return 2;
            }
            try {
                invocation.out().println(EpochFile.next(EpochFile.beside(k), System::currentTimeMillis));
                return 0;
            } catch (EpochFile.EpochException e) {
                invocation.err().println("sush: " + e.getMessage());
                return 1;
            }
        }
    }
}
