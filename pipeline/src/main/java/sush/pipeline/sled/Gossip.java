package sush.pipeline.sled;

import reactor.core.publisher.Flux;
import sush.gossip.node.Entry;
import sush.gossip.node.GossipNode;

/** What a sled needs of its gossip node: its entries into universes, and sending. */
public interface Gossip {
    /** Every entry: the start of the life, then each migration; the last one is current. */
    Flux<Entry> entries();

    /** Adds a message to the current universe (the sled never needs its version). */
    void send(byte[] payload);

    /** The daemon's gossip node. */
    static Gossip of(GossipNode node) {
        return new Gossip() {
            @Override
            public Flux<Entry> entries() {
                return node.entries();
            }

            @Override
            public void send(byte[] payload) {
                node.send(payload);
            }
        };
    }
}
