package sush.gossip.sync;

import sush.gossip.set.NetworkId;

/**
 * What one side of a finished session did: its role, the peer's universe and name, how many
 * messages it sent, received, and newly added (received minus those a concurrent session had
 * already brought).
 */
public record SyncOutcome(SyncSession.Role role, NetworkId peerNetwork, byte[] peerSender, int sent, int received,
        int added) {
}
