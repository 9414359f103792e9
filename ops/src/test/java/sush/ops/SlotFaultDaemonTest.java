package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.SlotFaults;
import sush.projections.fold.Ordering;

/**
 * {@code sush daemon --fault-injection DIR} (issue 38, what the nemesis drives), through a real
 * daemon as the nemesis runs it: a slot that fails with EIO keeps the job from running and ends
 * it with an error, and the next job runs once the slot works again; a slow slot delays the
 * commit by what was asked; a flag naming no directory is refused before anything starts.
 */
class SlotFaultDaemonTest extends ProcessRack {
    @Test
    void injectedSlotFaultsFailCommitsClosedAndSlowThemDown() throws Exception {
        rack = RackCommand.create(dir, 2, LocalRack.freePorts(2), Ordering.SIGNED);
        Path faults = Files.createDirectories(dir.resolve("faults"));
        processes.add(RackAccess.start(dir, rack.sleds().get(0), List.of(), List.of("--fault-injection",
                faults.toString())));
        processes.add(RackAccess.start(dir, rack.sleds().get(1)));
        await("one universe", () -> oneUniverse(2));
        assertEquals(0, cli(1, "session", "start", "--wait").exit());
        String board0 = rack.sleds().get(0).baseboard();

        control(faults, SlotFaults.EIO, "all");
        Path never = dir.resolve("never-ran");
        String failed = start(1, "0", "touch " + never);
        await("the job ended on sled 0", () -> "error".equals(statuses(1, failed).get(board0)));
        assertFalse(Files.exists(never), "a job whose boundary could not be recorded never runs");

        Files.delete(faults.resolve(SlotFaults.EIO));
        Path ran = dir.resolve("ran");
        String next = start(1, "0", "touch " + ran);
        await("the next job ran on sled 0", () -> "stopped".equals(statuses(1, next).get(board0)));
        assertTrue(Files.exists(ran), "the slot works again: the next job runs");
        assertFalse(Files.exists(never), "the failed job stays not run");

        control(faults, SlotFaults.DELAY, "400");
        String slow = start(1, "0", "true");
        await("the slow job ran on sled 0", () -> "stopped".equals(statuses(1, slow).get(board0)));
        Matcher m = Pattern.compile("committed " + slow + " as record \\d+ in (\\d+) us").matcher(
                Files.readString(rack.sleds().get(0).output().getParent().resolve("daemon.log")));
        assertTrue(m.find(), "the commit is logged");
        assertTrue(Long.parseLong(m.group(1)) >= 400_000, "a slow slot made the commit take " + m.group(1) + " us");
        assertTrue(processes.get(0).isAlive(), "sled 0 never exited");
    }

    @Test
    void aFaultDirectoryThatIsNoneIsRefused() throws Exception {
        rack = RackCommand.create(dir, 1, LocalRack.freePorts(1), Ordering.SIGNED);
        CliRun r = CliRun.of("daemon", "--rack", dir.resolve("rack.json").toString(), "--sled",
                rack.sleds().get(0).baseboard(), "--fault-injection", dir.resolve("absent").toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--fault-injection"), r.err());
    }

    private static void control(Path faults, String name, String value) throws Exception {
        Path tmp = faults.resolve(name + ".tmp");
        Files.writeString(tmp, value + "\n");
        Files.move(tmp, faults.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }
}
