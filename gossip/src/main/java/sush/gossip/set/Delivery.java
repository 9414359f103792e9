package sush.gossip.set;

import sush.gossip.clock.Version;

/**
 * One message handed to a subscriber. {@code checkpoint} is the position to resume from to
 * receive the next delivery after this one.
 */
public record Delivery(long checkpoint, Version version, byte[] payload) {
}
