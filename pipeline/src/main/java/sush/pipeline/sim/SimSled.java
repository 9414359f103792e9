package sush.pipeline.sim;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import sush.gossip.clock.Version;
import sush.gossip.node.GossipNode;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Bookmarks;
import sush.gossip.set.Replica;
import sush.locker.store.Locker;
import sush.locker.store.MemorySlot;
import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.sled.SledRuntime;
import sush.projections.id.JobId;
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
    /** The universe this sled's current entry is in (null before its first). */
    NetworkId universe;
    /**
     * Per universe, over every life: the requests this sled folded, and the jobs it saw itself end
     * (a terminal status of its own in its fold). With forgetting (issue 39) a restarted sled's
     * set no longer holds what was settled: these say what it knew.
     */
    final Map<NetworkId, JobSet> requested = new HashMap<>();
    final Map<NetworkId, JobSet> ended = new HashMap<>();
    /** Jobs this life's settlement settled: its fold forgot their statuses (D-054). */
    final JobSet settledThisLife;
    /** Jobs the ledger says this sled launched, as far as the status checker looked (over every life). */
    final JobSet launched;
    private final JobSet.Index jobs;
    /** Its bookmarks: they outlive its lives as the daemon's outlive a crash (D-053); a wipe clears them. */
    final Bookmarks bookmarks = new Bookmarks();
    /** Per universe, the join of every frontier this sled's replicas had there, over every life: what it saw. */
    final Map<NetworkId, Version> seen = new HashMap<>();

    /** Notes that this sled folded {@code job}'s request in {@code universe}. */
    void requested(NetworkId universe, JobId job) {
        requested.computeIfAbsent(universe, u -> new JobSet(jobs)).add(job);
    }

    /** Notes that this sled saw itself end {@code job} in {@code universe}. */
    void ended(NetworkId universe, JobId job) {
        ended.computeIfAbsent(universe, u -> new JobSet(jobs)).add(job);
    }

    /** Whether this sled folded {@code job}'s request in {@code universe}, in some life. */
    boolean requestedIn(NetworkId universe, JobId job) {
        JobSet s = requested.get(universe);
        return s != null && s.contains(job);
    }

    /** Whether this sled saw itself end {@code job} in {@code universe}, in some life. */
    boolean endedIn(NetworkId universe, JobId job) {
        JobSet s = ended.get(universe);
        return s != null && s.contains(job);
    }

    /** Notes what this sled's replica holds now (before a crash takes it, and before a forgetting is judged). */
    void noteSeen() {
        if (node != null) {
            Replica r = node.replica();
            if (!r.network().isBootstrapping()) {
                seen.merge(r.network(), r.frontier(), Version::join);
            }
        }
    }

    SimSled(int index, JobSet.Index jobs) {
        this.jobs = jobs;
        this.settledThisLife = new JobSet(jobs);
        this.launched = new JobSet(jobs);
        this.index = index;
        this.sled = new Sled(String.format("913-0000019:SIM%04d", index), index);
        this.a = new MemorySlot(sled.baseboard() + "/m2-a");
        this.b = new MemorySlot(sled.baseboard() + "/m2-b");
    }

    String name() {
        return "s" + index;
    }
}
