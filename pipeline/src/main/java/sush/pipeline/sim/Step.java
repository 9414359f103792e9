package sush.pipeline.sim;

import java.util.List;
import java.util.Set;

/** One step of a simulated schedule. A schedule is data: it can be printed, shrunk and saved. */
public sealed interface Step {
    /** Virtual time passes: gossip, sessions, timers. */
    record Advance(long millis) implements Step {
    }

    /** The sled's process dies: memory lost, slots keep what was durable. */
    record Crash(int sled) implements Step {
    }

    /** A crashed sled boots again (a new life). */
    record Restart(int sled) implements Step {
    }

    /** Every sled dies, then every sled boots: a whole-rack cold boot. */
    record ColdBoot() implements Step {
    }

    /** Every sled dies, then boots inside {@code groups} that cannot reach each other. */
    record SplitBrainColdBoot(List<Set<Integer>> groups) implements Step {
    }

    /** The network splits into {@code groups}. */
    record Partition(List<Set<Integer>> groups) implements Step {
    }

    /** Every cut heals. */
    record Heal() implements Step {
    }

    /** An operator starts a session through {@code via}. */
    record StartSession(int via) implements Step {
    }

    /** An operator submits the next job of the current session through {@code via}. */
    record Submit(int via, String target, boolean concurrent) implements Step {
    }

    /** An operator re-sends job {@code index} of the current session through {@code via}. */
    record Resend(int via, int index) implements Step {
    }

    /** An operator stops the current session through {@code via}. */
    record StopSession(int via) implements Step {
    }

    /** An operator burns the next position of the current session through {@code via}. */
    record Skip(int via) implements Step {
    }

    /**
     * An operator burns an arbitrary position of the current session through {@code via}: the
     * first position, or the position of job {@code pick} (modulo the jobs signed), which may be
     * behind some sleds' heads, a job for other sleds, or one already running somewhere.
     */
    record Burn(int via, int pick) implements Step {
    }

    /** An operator re-sends burn {@code index} (modulo the burns sent, any session) through {@code via}. */
    record ResendBurn(int via, int index) implements Step {
    }

    /** An operator stops job {@code index} (modulo the jobs of the current session): queued or running. */
    record StopJob(int via, int index) implements Step {
    }

    /** The sled dies right after its next launch: its commit is on both slots, the job started. */
    record CrashAfterCommit(int sled) implements Step {
    }

    /** An operator stops the newest job of the current session through {@code via} (often just after its submit). */
    record StopNewest(int via) implements Step {
    }

    /**
     * The sled's M.2s become slow: every boundary write takes {@code millis} from now on (until
     * another SlowDisk), so a stop can fall between a job's commit and its launch.
     */
    record SlowDisk(int sled, long millis) implements Step {
    }

    /** Every running job on every live sled exits 0 (a job its starter stopped never ends by itself). */
    record EndJobs() implements Step {
    }

    /** A drive fault armed on one slot of a sled (for its next write, or now for a bit flip). */
    record SlotFault(int sled, int slot, String kind) implements Step {
    }

    /** The sled dies inside its next boundary write, before the write happens. */
    record CrashOnWrite(int sled) implements Step {
    }

    /** The sled's drives are wiped or replaced (it crashes first): its next life has no record. */
    record Wipe(int sled) implements Step {
    }

    /**
     * Signed ordering: the signer's clock goes back {@code millis} and its epoch file is lost,
     * for the next grant only (ordered-sessions.md section 8, scenario 5). Nothing in causal.
     */
    record SignerClockBack(long millis) implements Step {
    }

    /**
     * Signed ordering: a broken signer issues the next grant the epoch of the previous one
     * (scenario 6). Nothing in causal.
     */
    record SignerReusesEpoch() implements Step {
    }

    /**
     * Forbidden on purpose: the run's first session's start message gossiped again through
     * {@code via}, and the operator goes back to that session (its jobs are what Resend sends). Session ids are accepted once, in one universe (at-most-once.md section 2); a
     * replayed start gives an old session a new start version, and the checkers must catch what
     * follows.
     */
    record ReplayStart(int via) implements Step {
    }
}
