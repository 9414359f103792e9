package sush.ops.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.ops.signer.EpochFile;

/** {@code sush signer epoch}: a fresh epoch of the signer, reserved in its epoch file (ordered-sessions.md). */
@Command(name = "signer", description = "The signer's own state.", subcommands = SignerCommand.Epoch.class)
public final class SignerCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.out);
        return 0;
    }

    @Command(name = "epoch", description = "Issue and print a fresh epoch of the signer (max(now ms, last + 1), "
            + "fsynced in KEY.epoch before it is printed). Use it as `locker provision --floor-epoch` after a wipe.")
    static final class Epoch implements Callable<Integer> {
        @Option(names = "--key", description = "the signer's private key (env SUSH_SIGNER_KEY)")
        Path key;

        @Override
        public Integer call() {
            Path k = Global.signerKeyFile(key);
            if (k == null) {
                System.err.println("sush: no signer key: pass --key FILE or set SUSH_SIGNER_KEY");
                return 2;
            }
            try {
                System.out.println(EpochFile.next(EpochFile.beside(k), System::currentTimeMillis));
                return 0;
            } catch (EpochFile.EpochException e) {
                System.err.println("sush: " + e.getMessage());
                return 1;
            }
        }
    }
}
