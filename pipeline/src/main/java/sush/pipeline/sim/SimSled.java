package sush.pipeline.sim;

import sush.gossip.node.GossipNode;
import sush.locker.store.Locker;
import sush.locker.store.MemorySlot;
import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.sled.SledRuntime;
import sush.projections.targets.Sled;

/**
 * One simulated sled and its current life: its identity and its two in-memory M.2 slots, which
 * outlive its lives, and what each boot makes anew (gossip node, locker, runtime, ledger
 * launcher), with the faults armed on it. The {@link SimRack} boots and crashes it.
 */
final class SimSled {
    final int index;
    final Sled sled;
    final MemorySlot a;
    final MemorySlot b;
    int life;
    GossipNode node;
    SledRuntime runtime;
    Locker<?> locker;
    LedgerLauncher launcher;
    boolean up;
    boolean dying;
    /** How long a boundary write takes on this sled's M.2s (a slow disk: the SlowDisk fault). */
    long writeMillis = SlowWriter.LATENCY_MILLIS;
    /** Dies right after its next launch (a commit on both slots, the job started). */
    boolean crashAfterLaunch;

    SimSled(int index) {
        this.index = index;
        this.sled = new Sled(String.format("913-0000019:SIM%04d", index), index);
        this.a = new MemorySlot(sled.baseboard() + "/m2-a");
        this.b = new MemorySlot(sled.baseboard() + "/m2-b");
    }

    String name() {
        return "s" + index;
    }
}
