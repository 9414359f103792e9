package sush.pipeline.sim;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.locker.store.MemorySlot;
import sush.projections.fold.Ordering;
import sush.projections.job.SignedJob;

/**
 * The schedule's steps that happen to the rack rather than through the operator: time passing,
 * crashes and restarts, cold boots (whole-rack and split-brain), partitions, drive faults, slow
 * disks, wipes and jobs ending. A cold boot in the signed ordering is followed by the
 * operator's {@code session resume}, as an operator does.
 */
final class FaultSteps {
    private final SimRack rack;
    private final Operator operator;
    private final OperatorActions actions;
    private final SimSigner signer;

    FaultSteps(SimRack rack, Operator operator, OperatorActions actions, SimSigner signer) {
        this.rack = rack;
        this.operator = operator;
        this.actions = actions;
        this.signer = signer;
    }

    /** Applies {@code step} if it is a fault or the passing of time; false for an operator's step. */
    boolean apply(Step step) {
        if (step instanceof Step.Advance) {
            rack.advance(((Step.Advance) step).millis());
        } else if (step instanceof Step.Crash) {
            rack.faults.add("crash");
            rack.crash(rack.sleds.get(((Step.Crash) step).sled()));
        } else if (step instanceof Step.Restart) {
            SimSled s = rack.sleds.get(((Step.Restart) step).sled());
            if (!s.up) {
                rack.faults.add("restart");
                rack.boot(s);
            }
        } else if (step instanceof Step.SlowDisk) {
            Step.SlowDisk d = (Step.SlowDisk) step;
            rack.faults.add("slow-disk");
            rack.sleds.get(d.sled()).writeMillis = d.millis();
        } else if (step instanceof Step.ColdBoot) {
            coldBoot();
        } else if (step instanceof Step.SplitBrainColdBoot) {
            splitBrainColdBoot((Step.SplitBrainColdBoot) step);
        } else if (step instanceof Step.Partition) {
            rack.faults.add("partition");
            rack.partition(((Step.Partition) step).groups());
        } else if (step instanceof Step.Heal) {
            rack.network.healAll();
        } else if (step instanceof Step.SlotFault) {
            slotFault((Step.SlotFault) step);
        } else if (step instanceof Step.CrashOnWrite) {
            crashOnWrite((Step.CrashOnWrite) step);
        } else if (step instanceof Step.CrashAfterCommit) {
            SimSled s = rack.sleds.get(((Step.CrashAfterCommit) step).sled());
            s.crashAfterLaunch = s.up;
        } else if (step instanceof Step.EndJobs) {
            rack.endJobs(operator.stoppedJobs);
        } else if (step instanceof Step.Wipe) {
            wipe((Step.Wipe) step);
        } else {
            return false;
        }
        return true;
    }

    /** Every sled dies, then every sled boots; the operator resumes its session through sled 0. */
    private void coldBoot() {
        rack.faults.add("cold-boot");
        noteTargetedBeforeColdBoot();
        rack.sleds.forEach(rack::crash);
        rack.sleds.forEach(rack::boot);
        actions.resumeAfterColdBoot(0);
    }

    /** Every sled dies, then boots inside its group; the operator resumes its session in each group. */
    private void splitBrainColdBoot(Step.SplitBrainColdBoot step) {
        rack.faults.add("split-brain-cold-boot");
        noteTargetedBeforeColdBoot();
        rack.sleds.forEach(rack::crash);
        rack.partition(step.groups());
        rack.sleds.forEach(rack::boot);
        for (Set<Integer> g : step.groups()) {
            g.stream().findFirst().ifPresent(actions::resumeAfterColdBoot);
        }
    }

    /** A cold boot after a job of the current session that some sleds do not run (issue 34, item 3). */
    private void noteTargetedBeforeColdBoot() {
        for (SignedJob j : operator.jobs()) {
            if (rack.sleds.stream().anyMatch(s -> !Checkers.targets(j, s.sled))) {
                rack.faults.add("cold-boot-after-targeted-job");
                return;
            }
        }
    }

    private void slotFault(Step.SlotFault f) {
        SimSled s = rack.sleds.get(f.sled());
        MemorySlot slot = f.slot() == 0 ? s.a : s.b;
        rack.faults.add("slot-" + f.kind());
        if (f.kind().equals("bit-flip")) {
            if (slot.contents().isPresent()) {
                slot.flipBit((int) (rack.seed % 4096) + f.sled() * 8);
            }
        } else {
            slot.arm(MemorySlot.Fault.valueOf(f.kind()), false);
        }
    }

    /** The sled dies inside its next boundary write, before the write happens. */
    private void crashOnWrite(Step.CrashOnWrite step) {
        rack.faults.add("crash-mid-store");
        SimSled s = rack.sleds.get(step.sled());
        Runnable die = () -> {
            s.dying = true;
            // A process dying inside a write says nothing after it: its links close at once, so
            // the failed write's error never leaves (a sled that gossiped it would be telling the
            // rack a status its next life does not know, and may contradict).
            s.node.stop();
            throw new IllegalStateException("simulated crash inside a slot write");
        };
        s.a.beforeWrite(die);
        s.b.beforeWrite(die);
    }

    /** The sled crashes and its drives are emptied; in the signed ordering, new drives are provisioned. */
    private void wipe(Step.Wipe step) {
        rack.faults.add("wipe");
        SimSled s = rack.sleds.get(step.sled());
        rack.crash(s);
        s.bookmarks.clear();
        s.a.setContents(Optional.empty());
        s.b.setContents(Optional.empty());
        if (rack.ordering == Ordering.SIGNED) {
            // Ordered-sessions.md section 4: re-provisioning with a fresh signer epoch is safe.
            rack.faults.add("wipe-reprovision");
            // New drives: no armed fault, no crash hook.
            for (MemorySlot m : List.of(s.a, s.b)) {
                m.heal();
                m.beforeWrite(() -> { });
            }
            try {
                Locker.provision(RecordFormat.SIGNED, List.of(s.a, s.b), rack.entropy(s, s.life, 3),
                        SignedRecord.provisioned(s.sled.baseboard(), signer.nextEpoch(false)));
            } catch (LockerException e) {
                throw new IllegalStateException("new drives refused provisioning", e);
            }
        }
    }
}
