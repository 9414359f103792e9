package sush.locker.record;

import static sush.locker.record.RecordException.Reason.MALFORMED;

import java.util.Arrays;
import java.util.Optional;
import java.util.Set;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import sush.projections.fold.JobStatus;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionRank;

/**
 * Bytes of a {@code signed} boundary record: the envelope of {@link BoundaryCodec}, its map
 * naming {@code "ordering": "signed"}, so a record of one ordering is never read as the other
 * (ordered-sessions.md section 6). As strict as the causal codec: unknown or missing fields,
 * wrong types, and bytes that do not re-encode identically are refused.
 */
public final class SignedCodec {
    static final String ORDERING = "signed";
    private static final Set<String> RECORD_FIELDS = Set.of("ordering", "baseboard", "floor", "committed");
    private static final Set<String> COMMITTED_FIELDS = Set.of("session", "epoch", "signer", "job", "successor",
            "outcome", "code", "detail");

    private SignedCodec() {
    }

    public static byte[] encode(SignedRecord r) {
        ArrayNode envelope = BoundaryCodec.CBOR.createArrayNode();
        envelope.add(BoundaryCodec.FORMAT_VERSION);
        ObjectNode body = envelope.addObject();
        body.put("ordering", ORDERING);
        body.put("baseboard", r.baseboard());
        body.put("floor", r.floor());
        if (r.committed().isEmpty()) {
            body.putNull("committed");
        } else {
            SignedCommitted c = r.committed().get();
            ObjectNode m = body.putObject("committed");
            m.put("session", c.session().session().toBytes());
            m.put("epoch", c.session().epoch());
            m.put("signer", c.session().signer().toBytes());
            m.put("job", c.job().toBytes());
            m.put("successor", c.successor().toBytes());
            m.put("outcome", BoundaryCodec.wireName(c.outcome().status()));
            m.put("code", c.outcome().code());
            m.put("detail", c.outcome().detail());
        }
        return BoundaryCodec.CBOR.writeValueAsBytes(envelope);
    }

    /** Decodes a record of {@code baseboard}; another sled's record is refused. */
    public static SignedRecord decode(byte[] bytes, String baseboard) throws RecordException {
        SignedRecord r = decode(bytes);
        BoundaryCodec.sameSled(r.baseboard(), baseboard);
        return r;
    }

    public static SignedRecord decode(byte[] bytes) throws RecordException {
        JsonNode body = BoundaryCodec.envelope(BoundaryCodec.tree(bytes));
        if (body == null || !body.isObject()) {
            throw new RecordException(MALFORMED, "record is not a map");
        }
        if (!body.has("ordering") || !body.get("ordering").isString()
                || !ORDERING.equals(body.get("ordering").stringValue())) {
            throw new RecordException(RecordException.Reason.ORDERING_MISMATCH, "a record of ordering "
                    + (body.has("ordering") ? body.get("ordering") : "causal") + " where this rack's ordering is "
                    + "signed; only `sush locker convert` turns one into the other");
        }
        BoundaryCodec.fields(body, "record", RECORD_FIELDS, RECORD_FIELDS);
        SignedRecord r;
        try {
            r = new SignedRecord(BoundaryCodec.text(body.get("baseboard"), "baseboard",
                    BoundaryRecord.MAX_BASEBOARD_CHARS), epoch(body.get("floor"), "floor"),
                    committed(body.get("committed")));
        } catch (IllegalArgumentException e) {
            throw new RecordException(MALFORMED, e.getMessage());
        }
        if (!Arrays.equals(encode(r), bytes)) {
            throw new RecordException(MALFORMED, "not the canonical encoding of its record");
        }
        return r;
    }

    private static Optional<SignedCommitted> committed(JsonNode n) throws RecordException {
        if (n.isNull()) {
            return Optional.empty();
        }
        BoundaryCodec.fields(n, "committed", COMMITTED_FIELDS, COMMITTED_FIELDS);
        JobStatus status = BoundaryCodec.status(BoundaryCodec.text(n.get("outcome"), "outcome", 16));
        JsonNode code = n.get("code");
        if (!code.isIntegralNumber() || !code.canConvertToLong()) {
            throw new RecordException(MALFORMED, "committed.code is not a 64-bit integer");
        }
        try {
            Outcome outcome = new Outcome(status, code.longValue(), BoundaryCodec.text(n.get("detail"), "detail",
                    Outcome.MAX_DETAIL_CHARS));
            SessionRank rank = new SessionRank(epoch(n.get("epoch"), "committed.epoch"),
                    new KeyId(BoundaryCodec.id(n.get("signer"), "signer")),
                    new SessionId(BoundaryCodec.id(n.get("session"), "session")));
            return Optional.of(new SignedCommitted(rank, new JobId(BoundaryCodec.id(n.get("job"), "job")),
                    new JobId(BoundaryCodec.id(n.get("successor"), "successor")), outcome));
        } catch (IllegalArgumentException e) {
            throw new RecordException(MALFORMED, "committed: " + e.getMessage());
        }
    }

    private static long epoch(JsonNode n, String what) throws RecordException {
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 0) {
            throw new RecordException(MALFORMED, what + " is not an epoch (an integer from 0 to 2^63 - 1)");
        }
        return n.longValue();
    }
}
