package sush.gossip.clock;

import java.util.BitSet;

/** Test fixture: an ITC stamp plus the oracle's exact history (the set of event ids it saw). */
record Stamp(Id id, Version version, BitSet history) {
    static Stamp seed() {
        return new Stamp(Id.ONE, Version.ZERO, new BitSet());
    }

    Stamp tick(int eventId) {
        BitSet h = (BitSet) history.clone();
        h.set(eventId);
        return new Stamp(id, version.tick(id), h);
    }

    Stamp[] fork() {
        Id[] halves = id.fork();
        return new Stamp[] {new Stamp(halves[0], version, history), new Stamp(halves[1], version, history)};
    }

    Stamp join(Stamp other) {
        BitSet h = (BitSet) history.clone();
        h.or(other.history);
        return new Stamp(id.join(other.id), version.join(other.version), h);
    }

    /** Learns another stamp's events without taking its identity. */
    Stamp receive(Stamp other) {
        BitSet h = (BitSet) history.clone();
        h.or(other.history);
        return new Stamp(id, version.join(other.version), h);
    }

    boolean oracleLeq(Stamp other) {
        BitSet h = (BitSet) history.clone();
        h.andNot(other.history);
        return h.isEmpty();
    }
}
