package sush.ops.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.gossip.Entropy;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.DirectorySlot;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.locker.store.Slot;
import sush.ops.signer.EpochFile;

/**
 * {@code sush locker provision} and {@code sush locker convert}: the first record on a sled's
 * empty slots, and the one-way turn of a {@code causal} record into a {@code signed} one.
 */
@Command(name = "locker", description = "Boundary record maintenance.",
        subcommands = {LockerCommand.Provision.class, LockerCommand.Convert.class})
public final class LockerCommand implements Callable<Integer> {
    /** Where this command runs: its usage is printed on the invocation's standard output. */
    private final Invocation invocation;

    LockerCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    /**
     * The options every locker command takes (the sled and its two slot directories), and how
     * each ends: its line on success, a typed failure or the locker's refusal otherwise.
     */
    abstract static class Slots implements Callable<Integer> {
        @Option(names = "--m2", required = true, split = ",", description = "the two slot directories")
        List<Path> m2;
        @Option(names = "--baseboard", required = true, description = "this sled's baseboard serial")
        String baseboard;

        /** Where this command runs: its streams, and the directory its paths are relative to. */
        private final Invocation invocation;

        Slots(Invocation invocation) {
            this.invocation = invocation;
        }

        List<Slot> slots() throws Client.Failure {
            if (m2.size() != 2) {
                throw new Client.Failure(2, "usage", "--m2 needs exactly two slot directories");
            }
            return List.of(new DirectorySlot(invocation.path(m2.get(0))), new DirectorySlot(invocation.path(
                    m2.get(1))));
        }

        /** Does the command's work; returns what to print. */
        abstract String run() throws Client.Failure, LockerException;

        @Override
        public Integer call() {
            try {
                invocation.out().println(run());
                return 0;
            } catch (Client.Failure f) {
                invocation.err().println("sush: " + f.getMessage());
                return f.exit();
            } catch (LockerException e) {
                invocation.err().println("sush: " + e.getMessage());
                return 1;
            }
        }
    }

    /** The floor of a signed record, given or a fresh epoch of the signer. */
    static final class Floor {
        @Option(names = "--floor-epoch", description = "signed: sessions at or below this epoch are refused here "
                + "(default: a fresh epoch of the signer, from --key or SUSH_SIGNER_KEY)")
        Long floorEpoch;
        @Option(names = "--key", description = "the signer's private key, for a fresh floor epoch")
        Path key;

        /** Where the command runs: the environment ({@code SUSH_SIGNER_KEY}) and directory of its key. */
        private final Invocation invocation;

        Floor(Invocation invocation) {
            this.invocation = invocation;
        }

        long epoch() throws Client.Failure {
            return floorEpoch(invocation, floorEpoch, key);
        }
    }

    /**
     * The floor of a signed record: the one given, else a fresh epoch of the signer (reserved in
     * its epoch file), which is at least every epoch it issued before (ordered-sessions.md
     * section 4).
     */
    static long floorEpoch(Invocation invocation, Long given, Path key) throws Client.Failure {
        if (given != null) {
            if (given < 0) {
                throw new Client.Failure(2, "usage", "--floor-epoch must be an epoch from 0 to 2^63 - 1");
            }
            return given;
        }
        Path k = Global.signerKeyFile(invocation, key);
        if (k == null) {
            throw new Client.Failure(2, "no-floor", "a signed record needs a floor: pass --floor-epoch E (0 for a "
                    + "factory-new sled in a new rack), or --key FILE / SUSH_SIGNER_KEY to take a fresh epoch of "
                    + "the signer");
        }
        try {
            return EpochFile.next(EpochFile.beside(k), System::currentTimeMillis);
        } catch (EpochFile.EpochException e) {
            throw new Client.Failure(1, "epoch", e.getMessage());
        }
    }

    @Command(name = "provision", description = "Write the first record to a sled's empty slots (refuses slots "
            + "holding anything). Ordering signed (the default): safe after a wipe or drive swap with a fresh "
            + "floor epoch. Ordering causal: once at install only, never after the drives were wiped.")
    static final class Provision extends Slots {
        @Option(names = "--ordering", defaultValue = "signed", description = "the rack's session ordering: "
                + "signed or causal (default: ${DEFAULT-VALUE})")
        String ordering;
        @picocli.CommandLine.Mixin
        Floor floor;

        Provision(Invocation invocation) {
            super(invocation);
        }

        @Override
        String run() throws Client.Failure, LockerException {
            List<Slot> slots = slots();
            String what;
            if ("signed".equals(ordering)) {
                long epoch = floor.epoch();
                Locker.provision(RecordFormat.SIGNED, slots, Entropy.secure(),
                        SignedRecord.provisioned(baseboard, epoch));
                what = "ordering signed, floor epoch " + epoch;
            } else if ("causal".equals(ordering)) {
                if (floor.floorEpoch != null) {
                    throw new Client.Failure(2, "usage", "--floor-epoch is for the signed ordering");
                }
                Locker.provision(RecordFormat.CAUSAL, slots, Entropy.secure(), BoundaryRecord.genesis(baseboard));
                what = "ordering causal";
            } else {
                throw new Client.Failure(2, "usage", "--ordering is signed or causal, not " + ordering);
            }
            return "provisioned " + baseboard + " on " + m2.get(0) + " and " + m2.get(1) + " (" + what + ")";
        }
    }

    @Command(name = "convert", description = "Turn this sled's causal record into a signed one with the given "
            + "floor (the daemon must be stopped; refuses untrusted or empty slots). Every session granted before "
            + "the floor epoch is refused here afterwards.")
    static final class Convert extends Slots {
        @picocli.CommandLine.Mixin
        Floor floor;

        Convert(Invocation invocation) {
            super(invocation);
        }

        @Override
        String run() throws Client.Failure, LockerException {
            List<Slot> slots = slots();
            long epoch = floor.epoch();
            try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, baseboard, slots, Entropy.secure())) {
                l.convert(RecordFormat.SIGNED, causal -> SignedRecord.provisioned(baseboard, epoch));
            }
            return "converted " + baseboard + " to ordering signed, floor epoch " + epoch;
        }
    }
}
