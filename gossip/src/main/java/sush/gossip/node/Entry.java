package sush.gossip.node;

import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;

/**
 * The sled entered a universe: at start (it seeded its own) or by migration (it lost the
 * universe contest and bootstrapped into the winner's). The layers above take {@code replica}
 * and subscribe to its deliveries from checkpoint 0; the previous replica is dead.
 *
 * @param sequence 1 for the start of this life, then one more per migration
 */
public record Entry(long sequence, Cause cause, NetworkId network, Replica replica) {
    /** Why the sled entered. */
    public enum Cause {
        START,
        MIGRATION
    }
}
