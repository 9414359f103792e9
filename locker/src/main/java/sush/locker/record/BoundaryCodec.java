package sush.locker.record;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.cbor.CBORMapper;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.gossip.wire.MalformedException;
import sush.projections.fold.JobStatus;
import sush.projections.id.Id88;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

import static sush.locker.record.RecordException.Reason.MALFORMED;
import static sush.locker.record.RecordException.Reason.NEWER_FORMAT;

/**
 * Boundary record bytes: the versioned CBOR envelope {@code [formatVersion, record]}, the record a
 * map of fixed field names. Decoding is strict: unknown or missing fields, wrong types, and any
 * bytes that do not re-encode identically are refused, so two slots agree exactly when their
 * bodies are equal. A newer format version is an error, never a guess.
 */
public final class BoundaryCodec {
    public static final int FORMAT_VERSION = 1;
    /** Bound on an encoded record (16 recent universes and a full filter fit in well under this). */
    public static final int MAX_RECORD_BYTES = 64 * 1024;

    static final CBORMapper CBOR = CBORMapper.builder().build();
    private static final Set<String> RECORD_FIELDS = Set.of("baseboard", "network", "executed", "committed", "recent",
            "burned", "amnesiac");
    private static final Set<String> COMMITTED_FIELDS = Set.of("session", "job", "successor", "outcome", "code",
            "detail");
    private static final Set<String> LEFT_FIELDS = Set.of("network", "executed", "committed");

    private BoundaryCodec() {
    }

    public static byte[] encode(BoundaryRecord r) {
        ArrayNode envelope = CBOR.createArrayNode();
        envelope.add(FORMAT_VERSION);
        ObjectNode body = envelope.addObject();
        body.put("baseboard", r.baseboard());
        body.put("network", r.network().toBytes());
        body.put("executed", r.executed().toBytes());
        putCommitted(body, r.committed());
        ArrayNode recent = body.putArray("recent");
        for (Left l : r.recent()) {
            ObjectNode e = recent.addObject();
            e.put("network", l.network().toBytes());
            e.put("executed", l.executed().toBytes());
            putCommitted(e, l.committed());
        }
        body.put("burned", r.burned().toBytes());
        body.put("amnesiac", r.amnesiac());
        byte[] bytes = CBOR.writeValueAsBytes(envelope);
        if (bytes.length > MAX_RECORD_BYTES) {
            throw new IllegalArgumentException("record of " + bytes.length + " bytes over " + MAX_RECORD_BYTES);
        }
        return bytes;
    }

    /** Decodes a record of {@code baseboard}; another sled's record is refused. */
    public static BoundaryRecord decode(byte[] bytes, String baseboard) throws RecordException {
        BoundaryRecord r = decode(bytes);
        sameSled(r.baseboard(), baseboard);
        return r;
    }

    public static BoundaryRecord decode(byte[] bytes) throws RecordException {
        JsonNode root = tree(bytes);
        JsonNode body = envelope(root);
        if (body.has("ordering")) {
            throw new RecordException(RecordException.Reason.ORDERING_MISMATCH, "a record of ordering "
                    + body.get("ordering") + " where this rack's ordering is causal; only `sush locker convert` "
                    + "turns one into the other");
        }
        BoundaryRecord r = record(body);
        if (!Arrays.equals(encode(r), bytes)) {
            throw new RecordException(MALFORMED, "not the canonical encoding of its record");
        }
        return r;
    }

    /** Refuses a record of another sled (a swapped drive). */
    static void sameSled(String recorded, String baseboard) throws RecordException {
        if (!recorded.equals(baseboard)) {
            throw new RecordException(RecordException.Reason.OTHER_SLED,
                    "record of " + recorded + ", this sled is " + baseboard);
        }
    }

    /** The record map inside a {@code [version, record]} envelope of this format version. */
    static JsonNode envelope(JsonNode root) throws RecordException {
        if (root == null || !root.isArray() || root.size() != 2 || !root.get(0).isIntegralNumber()) {
            throw new RecordException(MALFORMED, "not a [version, record] envelope");
        }
        if (!root.get(0).canConvertToLong() || root.get(0).longValue() > FORMAT_VERSION) {
            throw new RecordException(NEWER_FORMAT, "format " + root.get(0) + " is newer than " + FORMAT_VERSION);
        }
        if (root.get(0).longValue() < FORMAT_VERSION) {
            throw new RecordException(MALFORMED, "format " + root.get(0) + " was never written");
        }
        return root.get(1);
    }

    /** The CBOR tree of at most {@link #MAX_RECORD_BYTES}. */
    static JsonNode tree(byte[] bytes) throws RecordException {
        if (bytes.length > MAX_RECORD_BYTES) {
            throw new RecordException(MALFORMED, "record of " + bytes.length + " bytes over " + MAX_RECORD_BYTES);
        }
        try {
            return CBOR.readTree(bytes);
        } catch (JacksonException e) {
            throw new RecordException(MALFORMED, "not CBOR: " + e.getOriginalMessage());
        }
    }

    private static BoundaryRecord record(JsonNode n) throws RecordException {
        fields(n, "record", RECORD_FIELDS, RECORD_FIELDS);
        JsonNode recentNode = n.get("recent");
        if (!recentNode.isArray() || recentNode.size() > BoundaryRecord.MAX_RECENT) {
            throw new RecordException(MALFORMED, "recent is not a list of at most " + BoundaryRecord.MAX_RECENT);
        }
        List<Left> recent = new ArrayList<>();
        for (JsonNode e : recentNode) {
            fields(e, "recent entry", LEFT_FIELDS, LEFT_FIELDS);
            recent.add(new Left(network(e.get("network")), version(e.get("executed")), committed(e.get("committed"))));
        }
        JsonNode amnesiac = n.get("amnesiac");
        if (!amnesiac.isBoolean()) {
            throw new RecordException(MALFORMED, "amnesiac is not a boolean");
        }
        try {
            return new BoundaryRecord(text(n.get("baseboard"), "baseboard", BoundaryRecord.MAX_BASEBOARD_CHARS),
                    network(n.get("network")), version(n.get("executed")), committed(n.get("committed")), recent,
                    Bloom.of(bytes(n.get("burned"), "burned", Bloom.BYTES)), amnesiac.booleanValue());
        } catch (IllegalArgumentException e) {
            throw new RecordException(MALFORMED, e.getMessage());
        }
    }

    private static void putCommitted(ObjectNode into, Optional<Committed> committed) {
        if (committed.isEmpty()) {
            into.putNull("committed");
            return;
        }
        Committed c = committed.get();
        ObjectNode m = into.putObject("committed");
        m.put("session", c.session().toBytes());
        m.put("job", c.job().toBytes());
        m.put("successor", c.successor().toBytes());
        m.put("outcome", wireName(c.outcome().status()));
        m.put("code", c.outcome().code());
        m.put("detail", c.outcome().detail());
    }

    private static Optional<Committed> committed(JsonNode n) throws RecordException {
        if (n.isNull()) {
            return Optional.empty();
        }
        fields(n, "committed", COMMITTED_FIELDS, COMMITTED_FIELDS);
        JobStatus status = status(text(n.get("outcome"), "outcome", 16));
        JsonNode code = n.get("code");
        if (!code.isIntegralNumber() || !code.canConvertToLong()) {
            throw new RecordException(MALFORMED, "committed.code is not a 64-bit integer");
        }
        try {
            Outcome outcome = new Outcome(status, code.longValue(), text(n.get("detail"), "detail",
                    Outcome.MAX_DETAIL_CHARS));
            return Optional.of(new Committed(new SessionId(id(n.get("session"), "session")),
                    new JobId(id(n.get("job"), "job")), new JobId(id(n.get("successor"), "successor")), outcome));
        } catch (IllegalArgumentException e) {
            throw new RecordException(MALFORMED, "committed: " + e.getMessage());
        }
    }

    static String wireName(JobStatus s) {
        return s == JobStatus.STARTED ? "committed" : s.name().toLowerCase(Locale.ROOT);
    }

    static JobStatus status(String wire) throws RecordException {
        for (JobStatus s : JobStatus.values()) {
            if (s != JobStatus.QUEUED && wireName(s).equals(wire)) {
                return s;
            }
        }
        throw new RecordException(MALFORMED, "unknown outcome " + wire);
    }

    static void fields(JsonNode n, String what, Set<String> required, Set<String> allowed)
            throws RecordException {
        if (n == null || !n.isObject()) {
            throw new RecordException(MALFORMED, what + " is not a map");
        }
        for (Iterator<String> it = n.propertyNames().iterator(); it.hasNext();) {
            String name = it.next();
            if (!allowed.contains(name)) {
                throw new RecordException(MALFORMED, what + " has an unknown field " + name);
            }
        }
        for (String name : required) {
            if (!n.has(name)) {
                throw new RecordException(MALFORMED, what + " lacks " + name);
            }
        }
    }

    static String text(JsonNode n, String what, int maxChars) throws RecordException {
        if (!n.isString() || n.stringValue().length() > maxChars) {
            throw new RecordException(MALFORMED, what + " is not text of at most " + maxChars + " characters");
        }
        return n.stringValue();
    }

    static byte[] bytes(JsonNode n, String what, int exactLength) throws RecordException {
        if (!n.isBinary() || n.binaryValue().length != exactLength) {
            throw new RecordException(MALFORMED, what + " is not " + exactLength + " bytes");
        }
        return n.binaryValue();
    }

    static byte[] id(JsonNode n, String what) throws RecordException {
        return bytes(n, what, Id88.BYTES);
    }

    private static NetworkId network(JsonNode n) throws RecordException {
        return NetworkId.of(bytes(n, "network", NetworkId.SIZE_BYTES));
    }

    private static Version version(JsonNode n) throws RecordException {
        if (!n.isBinary()) {
            throw new RecordException(MALFORMED, "a version is not bytes");
        }
        try {
            return Version.fromBytes(n.binaryValue());
        } catch (MalformedException e) {
            throw new RecordException(MALFORMED, "version: " + e.getMessage());
        }
    }
}
