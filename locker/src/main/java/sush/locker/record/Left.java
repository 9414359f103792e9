package sush.locker.record;

import java.util.Objects;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;

/** A universe the sled left behind, with what it had executed and committed there. */
public record Left(NetworkId network, Version executed, Optional<Committed> committed) {
    public Left {
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(executed, "executed");
        Objects.requireNonNull(committed, "committed");
    }
}
