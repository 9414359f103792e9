package sush.locker.record;

import java.util.Objects;
import java.util.Optional;


/**
 * The boundary record of a rack whose ordering is {@code signed} (ordered-sessions.md section
 * 3): the baseboard, the provisioning floor (an unsigned epoch: sessions at or below it are
 * refused; never lowered) and the last job committed. Nothing in it depends on gossip universes.
 *
 * <p>Invariant O1: {@code committed} names the newest session this sled ever committed a job of
 * since the record was created; every session it committed a job of is at or below it.
 */
public record SignedRecord(String baseboard, long floor, Optional<SignedCommitted> committed) {
    public SignedRecord {
        Objects.requireNonNull(baseboard, "baseboard");
        Objects.requireNonNull(committed, "committed");
        if (baseboard.isEmpty() || baseboard.length() > BoundaryRecord.MAX_BASEBOARD_CHARS) {
            throw new IllegalArgumentException("baseboard of 1 to " + BoundaryRecord.MAX_BASEBOARD_CHARS
                    + " characters");
        }
        if (floor < 0) {
            throw new IllegalArgumentException("floor " + Long.toUnsignedString(floor) + " is past 2^63 - 1");
        }
        if (committed.isPresent() && committed.get().session().epoch() <= floor) {
            throw new IllegalArgumentException("a committed session at or below the floor: never admitted");
        }
    }

    /** The first record of a provisioned sled: nothing committed, sessions up to {@code floor} refused. */
    public static SignedRecord provisioned(String baseboard, long floor) {
        return new SignedRecord(baseboard, floor, Optional.empty());
    }

    /**
     * Invariant O1 between the newest record and its successor: the same sled, the same floor,
     * and the committed session never moves back in the order.
     */
    public static void checkO1(Optional<SignedRecord> newest, SignedRecord next) {
        if (newest.isEmpty()) {
            return;
        }
        SignedRecord n = newest.get();
        if (!n.baseboard().equals(next.baseboard()) || n.floor() != next.floor()) {
            throw new IllegalStateException("O1: a record of another sled or floor follows " + n);
        }
        if (n.committed().isPresent() && (next.committed().isEmpty()
                || n.committed().get().session().newerThan(next.committed().get().session()))) {
            throw new IllegalStateException("O1: the committed session moves back from "
                    + n.committed().get().session() + " to " + next.committed().map(SignedCommitted::session));
        }
    }
}
