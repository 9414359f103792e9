package sush.projections.job;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A job run in waves with an error budget (issue 40, D-059), signed into its request: among the
 * job's targets (a list of cubbies), sorted by cubby, wave {@code w} is ranks
 * {@code [w*size, (w+1)*size)}. A sled of wave {@code w} starts the job only once it holds a
 * terminal status of every sled of the earlier waves, and never when more than
 * {@code maxFailures} of those failed: it ends {@code Skipped{BudgetSpent}}. At most {@code size}
 * sleds run the job at once and at most {@code maxFailures + size} fail, each sled deciding from
 * gossip alone. {@link #NONE} (size 0) is a job without waves: it hashes and encodes as before.
 */
public record JobWave(int size, int maxFailures) {
    /** No waves: every targeted sled runs the job when it reaches the job. */
    public static final JobWave NONE = new JobWave(0, 0);
    /** A rack has 32 cubbies: a wave larger than that is one wave. */
    public static final int MAX_SIZE = 32;

    public JobWave {
        if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException("a wave size is 1 to " + MAX_SIZE + " sleds, not " + size);
        }
        if (maxFailures < 0 || maxFailures > MAX_SIZE) {
            throw new IllegalArgumentException("a failure budget is 0 to " + MAX_SIZE + " sleds, not " + maxFailures);
        }
        if (size == 0 && maxFailures != 0) {
            throw new IllegalArgumentException("a failure budget needs a wave size");
        }
    }

    /** Whether the job runs in waves. */
    public boolean isSet() {
        return size > 0;
    }

    /** The wave of {@code cubby} among {@code members} (sorted cubbies), or -1 when it is not one of them. */
    public int waveOf(List<Integer> members, int cubby) {
        int rank = members.indexOf(cubby);
        return rank < 0 ? -1 : rank / size;
    }

    /** The signed bytes: two 4-byte big-endian numbers, size then budget. */
    byte[] toBytes() {
        return ByteBuffer.allocate(8).putInt(size).putInt(maxFailures).array();
    }
}
