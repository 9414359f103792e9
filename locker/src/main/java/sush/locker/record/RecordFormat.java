package sush.locker.record;

import java.util.Optional;

/**
 * A boundary record's format for one session ordering: how the locker encodes, strictly decodes
 * and checks the records of a rack whose ordering is {@code causal} (at-most-once.md section 4)
 * or {@code signed} (ordered-sessions.md section 3). The slots, the load table, the re-stamp and
 * the single writer are the same for both; only the body differs, and a body of one ordering is
 * never read as the other ({@link RecordException.Reason#ORDERING_MISMATCH}).
 */
public interface RecordFormat<R> {
    RecordFormat<BoundaryRecord> CAUSAL = new Causal();
    RecordFormat<SignedRecord> SIGNED = new Signed();

    /** The ordering's name as {@code rack.json} and the record spell it. */
    String ordering();

    byte[] encode(R record);

    /** Strict decode of a record of any sled. */
    R decode(byte[] body) throws RecordException;

    /** Strict decode of a record of {@code baseboard}; another sled's record is refused. */
    R decode(byte[] body, String baseboard) throws RecordException;

    String baseboard(R record);

    /** The record invariant across one write (I1 or O1); throws when {@code next} breaks it. */
    void check(Optional<R> newest, R next);

    /** The format of {@code ordering} ({@code causal} or {@code signed}). */
    static RecordFormat<?> of(String ordering) {
        switch (ordering) {
            case "causal":
                return CAUSAL;
            case "signed":
                return SIGNED;
            default:
                throw new IllegalArgumentException("ordering " + ordering + " is neither signed nor causal");
        }
    }

    /** Records of the causal ordering: universes, executed join, recent map, Bloom filter. */
    final class Causal implements RecordFormat<BoundaryRecord> {
        private Causal() {
        }

        @Override
        public String ordering() {
            return "causal";
        }

        @Override
        public byte[] encode(BoundaryRecord record) {
            return BoundaryCodec.encode(record);
        }

        @Override
        public BoundaryRecord decode(byte[] body) throws RecordException {
            return BoundaryCodec.decode(body);
        }

        @Override
        public BoundaryRecord decode(byte[] body, String baseboard) throws RecordException {
            return BoundaryCodec.decode(body, baseboard);
        }

        @Override
        public String baseboard(BoundaryRecord record) {
            return record.baseboard();
        }

        @Override
        public void check(Optional<BoundaryRecord> newest, BoundaryRecord next) {
            BoundaryRecord.checkI1(newest, next);
        }

        @Override
        public String toString() {
            return ordering();
        }
    }

    /** Records of the signed ordering: a floor epoch and the last committed job. */
    final class Signed implements RecordFormat<SignedRecord> {
        private Signed() {
        }

        @Override
        public String ordering() {
            return "signed";
        }

        @Override
        public byte[] encode(SignedRecord record) {
            return SignedCodec.encode(record);
        }

        @Override
        public SignedRecord decode(byte[] body) throws RecordException {
            return SignedCodec.decode(body);
        }

        @Override
        public SignedRecord decode(byte[] body, String baseboard) throws RecordException {
            return SignedCodec.decode(body, baseboard);
        }

        @Override
        public String baseboard(SignedRecord record) {
            return record.baseboard();
        }

        @Override
        public void check(Optional<SignedRecord> newest, SignedRecord next) {
            SignedRecord.checkO1(newest, next);
        }

        @Override
        public String toString() {
            return ordering();
        }
    }
}
