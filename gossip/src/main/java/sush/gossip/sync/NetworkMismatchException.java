package sush.gossip.sync;

import sush.gossip.set.NetworkId;

/**
 * The peer belongs to another universe. Both sides see the same four values, so both decide
 * the universe contest the same way: greater minTicks wins, ties go to the lower network id.
 */
public final class NetworkMismatchException extends SyncException {
    private static final long serialVersionUID = 1L;

    private final transient NetworkId localNetwork;
    private final long localMinTicks;
    private final transient NetworkId remoteNetwork;
    private final long remoteMinTicks;

    public NetworkMismatchException(NetworkId localNetwork, long localMinTicks, NetworkId remoteNetwork,
            long remoteMinTicks) {
        super(Kind.NETWORK_MISMATCH, "local " + localNetwork + " (minTicks " + localMinTicks + "), remote "
                + remoteNetwork + " (minTicks " + remoteMinTicks + ")");
        this.localNetwork = localNetwork;
        this.localMinTicks = localMinTicks;
        this.remoteNetwork = remoteNetwork;
        this.remoteMinTicks = remoteMinTicks;
    }

    public NetworkId localNetwork() {
        return localNetwork;
    }

    public long localMinTicks() {
        return localMinTicks;
    }

    public NetworkId remoteNetwork() {
        return remoteNetwork;
    }

    public long remoteMinTicks() {
        return remoteMinTicks;
    }

    /** Whether the local universe wins the contest: (minTicks, then lower network id). */
    public boolean localWins() {
        return beats(localMinTicks, localNetwork, remoteMinTicks, remoteNetwork);
    }

    /** The universe contest: greater minTicks wins; equal minTicks go to the lower network id. */
    public static boolean beats(long minTicks, NetworkId network, long otherMinTicks, NetworkId otherNetwork) {
        if (minTicks != otherMinTicks) {
            return minTicks > otherMinTicks;
        }
        return network.compareTo(otherNetwork) < 0;
    }
}
