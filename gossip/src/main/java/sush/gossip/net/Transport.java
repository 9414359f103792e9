package sush.gossip.net;

import java.util.function.Consumer;

import reactor.core.publisher.Mono;
import sush.gossip.link.Link;

/** Opens links between sleds: TCP on a rack, in memory in tests and the simulator. */
public interface Transport {
    /** Starts accepting; every accepted link is handed to {@code acceptor}. */
    Mono<Void> listen(Consumer<Link> acceptor);

    /** Opens a link to {@code address}; fails if the address cannot be reached. */
    Mono<Link> dial(String address);

    /** The address peers dial to reach this sled. */
    String localAddress();

    /** Stops accepting and closes every link this transport opened or accepted. */
    void close();
}
