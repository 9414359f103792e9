package sush.ops.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.gossip.Entropy;
import sush.locker.store.DirectorySlot;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;

/** {@code sush locker provision}: the genesis record on a new sled's empty slots. */
@Command(name = "locker", description = "Boundary record maintenance.", subcommands = LockerCommand.Provision.class)
public final class LockerCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.out);
        return 0;
    }

    @Command(name = "provision", description = "Write the genesis record to a new sled's empty slots (refuses slots "
            + "holding anything). Run once at install; never after the drives were wiped.")
    static final class Provision implements Callable<Integer> {
        @Option(names = "--m2", required = true, split = ",", description = "the two slot directories")
        List<Path> m2;
        @Option(names = "--baseboard", required = true)
        String baseboard;

        @Override
        public Integer call() {
            if (m2.size() != 2) {
                System.err.println("sush: --m2 needs exactly two slot directories");
                return 2;
            }
            try {
                Locker.provision(baseboard, List.of(new DirectorySlot(m2.get(0)), new DirectorySlot(m2.get(1))),
                        Entropy.secure());
                System.out.println("provisioned " + baseboard + " on " + m2.get(0) + " and " + m2.get(1));
                return 0;
            } catch (LockerException e) {
                System.err.println("sush: " + e.getMessage());
                return 1;
            }
        }
    }
}
