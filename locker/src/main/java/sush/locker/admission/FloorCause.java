package sush.locker.admission;

/** Why a floor was raised in this entry (at-most-once.md section 3). */
public enum FloorCause {
    /** The universe is not the record's nor a recent one, but is in the Bloom filter: we burned it. */
    UNIVERSE_FLIP_FLOP,
    /** No record, or an amnesiac one, entering a universe it does not name: first visit or return is unknowable. */
    NO_TRUSTWORTHY_HISTORY,
    /** A session concurrent with everything this sled executed here (admission rule 8). */
    SESSION_HOP
}
