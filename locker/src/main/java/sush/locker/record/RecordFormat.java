package sush.locker.record;

import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A boundary record's format for one session ordering: how the locker encodes, strictly decodes
 * and checks the records of a rack whose ordering is {@code causal} (at-most-once.md section 4)
 * or {@code signed} (ordered-sessions.md section 3). The slots, the load table, the re-stamp and
 * the single writer are the same for both; only the body differs, and a body of one ordering is
 * never read as the other ({@link RecordException.Reason#ORDERING_MISMATCH}).
 */
public final class RecordFormat<R> {
    /** A strict decoder: a body that is not a record of this format is a typed error. */
    @FunctionalInterface
    private interface Decoder<R> {
        R decode(byte[] body) throws RecordException;
    }

    /** Records of the causal ordering: universes, executed join, recent map, Bloom filter. */
    public static final RecordFormat<BoundaryRecord> CAUSAL = new RecordFormat<>("causal", BoundaryCodec::encode,
            BoundaryCodec::decode, BoundaryRecord::baseboard, BoundaryRecord::checkI1);
    /** Records of the signed ordering: a floor epoch and the last committed job. */
    public static final RecordFormat<SignedRecord> SIGNED = new RecordFormat<>("signed", SignedCodec::encode,
            SignedCodec::decode, SignedRecord::baseboard, SignedRecord::checkO1);

    private final String ordering;
    private final Function<R, byte[]> encoder;
    private final Decoder<R> decoder;
    private final Function<R, String> baseboard;
    private final BiConsumer<Optional<R>, R> invariant;

    private RecordFormat(String ordering, Function<R, byte[]> encoder, Decoder<R> decoder,
            Function<R, String> baseboard, BiConsumer<Optional<R>, R> invariant) {
        this.ordering = ordering;
        this.encoder = encoder;
        this.decoder = decoder;
        this.baseboard = baseboard;
        this.invariant = invariant;
    }

    /** The format of {@code ordering} ({@code causal} or {@code signed}). */
    public static RecordFormat<?> of(String ordering) {
        switch (ordering) {
            case "causal":
                return CAUSAL;
            case "signed":
                return SIGNED;
            default:
                throw new IllegalArgumentException("ordering " + ordering + " is neither signed nor causal");
        }
    }

    /** The ordering's name as {@code rack.json} and the record spell it. */
    public String ordering() {
        return ordering;
    }

    public byte[] encode(R record) {
        return encoder.apply(record);
    }

    /** Strict decode of a record of any sled. */
    public R decode(byte[] body) throws RecordException {
        return decoder.decode(body);
    }

    /** Strict decode of a record of {@code baseboard}; another sled's record is refused. */
    public R decode(byte[] body, String board) throws RecordException {
        R r = decoder.decode(body);
        BoundaryCodec.sameSled(baseboard(r), Objects.requireNonNull(board, "board"));
        return r;
    }

    public String baseboard(R record) {
        return baseboard.apply(record);
    }

    /** The record invariant across one write (I1 or O1); throws when {@code next} breaks it. */
    public void check(Optional<R> newest, R next) {
        invariant.accept(newest, next);
    }

    @Override
    public String toString() {
        return ordering;
    }
}
