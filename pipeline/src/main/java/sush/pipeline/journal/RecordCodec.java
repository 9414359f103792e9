package sush.pipeline.journal;

import java.nio.charset.StandardCharsets;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;
import sush.gossip.wire.WireWriter;
import sush.projections.fold.ChainProjection;
import sush.projections.id.Id88;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/** Journal record bytes: a tag, then the record's fields, length-prefixed with gossip varints. */
final class RecordCodec {
    private static final int ENTERED = 1;
    private static final int DELIVERED = 2;
    private static final int DECISION = 3;
    private static final int RESUMED = 4;
    private static final int PASSED = 5;
    /** A delivery with the verdict on its job's signature (a delivery without one stays tag 2). */
    private static final int DELIVERED_CHECKED = 6;
    /** Bound on one field: a gossip payload is at most 64 KiB, a version at most a few MiB. */
    private static final int MAX_FIELD_BYTES = 16 << 20;

    private RecordCodec() {
    }

    static byte[] encode(JournalRecord r) {
        WireWriter w = new WireWriter();
        if (r instanceof JournalRecord.Entered) {
            JournalRecord.Entered e = (JournalRecord.Entered) r;
            w.writeVarint(ENTERED).writeVarint(e.entry()).writeLengthPrefixed(e.network().toBytes())
                    .writeLengthPrefixed(utf8(e.cause()));
        } else if (r instanceof JournalRecord.Delivered) {
            JournalRecord.Delivered d = (JournalRecord.Delivered) r;
            boolean checked = d.signature() != JournalRecord.Signature.UNCHECKED;
            w.writeVarint(checked ? DELIVERED_CHECKED : DELIVERED).writeLengthPrefixed(d.version().toBytes())
                    .writeLengthPrefixed(d.payload());
            if (checked) {
                w.writeVarint(signatureCode(d.signature()));
            }
        } else if (r instanceof JournalRecord.Resumed) {
            JournalRecord.Resumed x = (JournalRecord.Resumed) r;
            w.writeVarint(RESUMED).writeBytes(x.session().toBytes()).writeBytes(x.committed().toBytes())
                    .writeBytes(x.successor().toBytes());
        } else if (r instanceof JournalRecord.Passed) {
            JournalRecord.Passed x = (JournalRecord.Passed) r;
            w.writeVarint(PASSED).writeBytes(x.job().toBytes()).writeVarint(passedCode(x.how()));
        } else {
            JournalRecord.Decision d = (JournalRecord.Decision) r;
            w.writeVarint(DECISION).writeVarint(kindCode(d.kind())).writeLengthPrefixed(utf8(d.subject()))
                    .writeLengthPrefixed(utf8(d.detail()));
        }
        return w.toByteArray();
    }

    static JournalRecord decode(byte[] bytes) throws JournalException {
        return decode(bytes, 0, bytes.length);
    }

    /** The record in {@code length} bytes of {@code bytes} from {@code offset}. */
    static JournalRecord decode(byte[] bytes, int offset, int length) throws JournalException {
        try {
            WireReader in = new WireReader(bytes, offset, length);
            long tag = in.readVarint();
            JournalRecord r;
            if (tag == ENTERED) {
                long entry = in.readVarint();
                NetworkId n = NetworkId.of(in.readLengthPrefixed(NetworkId.SIZE_BYTES, "network"));
                r = new JournalRecord.Entered(entry, n, text(in, "cause"));
            } else if (tag == DELIVERED || tag == DELIVERED_CHECKED) {
                int versionBytes = in.readVarintAtMost(MAX_FIELD_BYTES, "version length");
                if (in.remaining() < versionBytes) {
                    throw new MalformedException(MalformedException.Reason.TRUNCATED, "version cut short");
                }
                Version v = Version.fromBytes(bytes, in.position(), versionBytes); // read in place
                in.skip(versionBytes);
                byte[] payload = in.readLengthPrefixed(MAX_FIELD_BYTES, "payload");
                JournalRecord.Signature signature = JournalRecord.Signature.UNCHECKED;
                if (tag == DELIVERED_CHECKED) {
                    signature = signature(in.readVarintAtMost(SIGNATURE_CODES.length - 1, "signature verdict"));
                    if (signature == JournalRecord.Signature.UNCHECKED) {
                        throw new JournalException(JournalException.Kind.CORRUPT, "a checked delivery without a verdict");
                    }
                }
                r = new JournalRecord.Delivered(v, payload, signature);
            } else if (tag == DECISION) {
                JournalRecord.Decision.Kind kind = kind(in.readVarintAtMost(KIND_CODES.length - 1, "decision kind"));
                r = new JournalRecord.Decision(kind, text(in, "subject"), text(in, "detail"));
            } else if (tag == RESUMED) {
                r = new JournalRecord.Resumed(new SessionId(in.readBytes(Id88.BYTES)), new JobId(in.readBytes(Id88.BYTES)),
                        new JobId(in.readBytes(Id88.BYTES)));
            } else if (tag == PASSED) {
                r = new JournalRecord.Passed(new JobId(in.readBytes(Id88.BYTES)),
                        passed(in.readVarintAtMost(2, "passed")));
            } else {
                throw new JournalException(JournalException.Kind.CORRUPT, "unknown record tag " + tag);
            }
            in.expectEnd("journal record");
            return r;
        } catch (MalformedException | IllegalArgumentException e) {
            throw new JournalException(JournalException.Kind.CORRUPT, "malformed record: " + e.getMessage());
        }
    }

    /**
     * Signature verdicts by their code on disk, fixed here and never an ordinal: reordering the
     * enum must not change what old journals mean (the codes are those journals already hold).
     */
    static final JournalRecord.Signature[] SIGNATURE_CODES = {JournalRecord.Signature.UNCHECKED,
        JournalRecord.Signature.GOOD, JournalRecord.Signature.UNKNOWN_KEY, JournalRecord.Signature.BAD_SIGNATURE};
    /** Decision kinds by their code on disk, fixed likewise. */
    static final JournalRecord.Decision.Kind[] KIND_CODES = {JournalRecord.Decision.Kind.ENTRY,
        JournalRecord.Decision.Kind.FLOOR, JournalRecord.Decision.Kind.VERDICT, JournalRecord.Decision.Kind.COMMIT,
        JournalRecord.Decision.Kind.LAUNCH, JournalRecord.Decision.Kind.SKIP, JournalRecord.Decision.Kind.ENDING,
        JournalRecord.Decision.Kind.ERROR};

    static int signatureCode(JournalRecord.Signature s) {
        return code(SIGNATURE_CODES, s);
    }

    static JournalRecord.Signature signature(int code) {
        return SIGNATURE_CODES[code];
    }

    static int kindCode(JournalRecord.Decision.Kind k) {
        return code(KIND_CODES, k);
    }

    static JournalRecord.Decision.Kind kind(int code) {
        return KIND_CODES[code];
    }

    private static <E> int code(E[] table, E value) {
        for (int i = 0; i < table.length; i++) {
            if (table[i] == value) {
                return i;
            }
        }
        throw new IllegalStateException(value + " has no journal code: give it the next free one");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(WireReader in, String what) throws MalformedException {
        return new String(in.readLengthPrefixed(MAX_FIELD_BYTES, what), StandardCharsets.UTF_8);
    }

    /**
     * A pass's code, fixed on the wire (never an ordinal): 0 may have run (what a journal written
     * before issue 13 meant by "not ran"), 1 ran, 2 never ran.
     */
    private static int passedCode(ChainProjection.Passed how) {
        switch (how) {
            case RAN:
                return 1;
            case NEVER_RAN:
                return 2;
            default:
                return 0;
        }
    }

    private static ChainProjection.Passed passed(int code) {
        return code == 1 ? ChainProjection.Passed.RAN
                : code == 2 ? ChainProjection.Passed.NEVER_RAN
                        : ChainProjection.Passed.MAY_HAVE_RUN;
    }
}
