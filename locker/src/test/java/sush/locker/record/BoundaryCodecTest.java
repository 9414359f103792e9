package sush.locker.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Version;
import sush.locker.Fixtures;
import sush.projections.fold.JobStatus;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.cbor.CBORMapper;

class BoundaryCodecTest {
    private static final CBORMapper CBOR = CBORMapper.builder().build();

    /** The bytes of format 1 for a small record: never re-pinned; a change of format adds a version. */
    static final String PINNED_SMALL = PinnedRecords.SMALL;

    static BoundaryRecord small() {
        return new BoundaryRecord(Fixtures.ME, Fixtures.universe(7), Fixtures.ticks(Fixtures.ids(2).get(0), 3),
                Optional.of(Fixtures.committed(Fixtures.session("pin"), 1,
                        Outcome.ended(JobStatus.ERROR, 9, "killed"))),
                List.of(new Left(Fixtures.universe(8), Version.ZERO, Optional.empty())),
                Bloom.EMPTY.with(Fixtures.universe(9)), true);
    }

    @Test
    void smallRecordEncodesToItsPinnedBytes() throws Exception {
        assertEquals(PINNED_SMALL, HexFormat.of().formatHex(BoundaryCodec.encode(small())));
        assertEquals(small(), BoundaryCodec.decode(HexFormat.of().parseHex(PINNED_SMALL)));
    }

    @Test
    void fullRecordEncodesToItsPinnedDigestAndStaysUnder16KiB() throws Exception {
        byte[] bytes = BoundaryCodec.encode(Fixtures.full());
        assertEquals(PinnedRecords.FULL_SHA3, HexFormat.of().formatHex(sush.projections.id.Hashes.sha3Raw(bytes)));
        assertTrue(bytes.length < 16 * 1024, bytes.length + " bytes");
        assertEquals(Fixtures.full(), BoundaryCodec.decode(bytes, Fixtures.ME));
    }

    @Test
    void everyOutcomeRoundTrips() throws Exception {
        for (JobStatus s : JobStatus.values()) {
            if (s == JobStatus.QUEUED) {
                continue;
            }
            Outcome o = s == JobStatus.STARTED ? Outcome.COMMITTED : Outcome.ended(s, -3, "x");
            BoundaryRecord r = recordWith(o);
            assertEquals(r, BoundaryCodec.decode(BoundaryCodec.encode(r)));
        }
    }

    @Test
    void theRecordHoldsMetadataOnly() throws Exception {
        // Every field of the format, at every depth: ids, versions, names, numbers, flags. None can
        // hold a command, job output or a gossip payload (the M.2 is unencrypted).
        JsonNode body = CBOR.readTree(BoundaryCodec.encode(Fixtures.full())).get(1);
        Set<String> names = new TreeSet<>();
        collect(body, names);
        assertEquals(new TreeSet<>(List.of("amnesiac", "baseboard", "burned", "code", "committed", "detail", "executed",
                "job", "network", "outcome", "recent", "session", "successor")), names);
        assertThrows(IllegalArgumentException.class, () -> Outcome.ended(JobStatus.ERROR, 0, "x".repeat(65)),
                "an outcome detail is a short wire name, never output");
    }

    @Test
    void aNewerFormatIsAnErrorNotAGuess() {
        byte[] bytes = BoundaryCodec.encode(small());
        bytes[1] = 0x02;
        RecordException e = assertThrows(RecordException.class, () -> BoundaryCodec.decode(bytes));
        assertEquals(RecordException.Reason.NEWER_FORMAT, e.reason());
    }

    @Test
    void anotherSledsRecordIsRefused() {
        RecordException e = assertThrows(RecordException.class,
                () -> BoundaryCodec.decode(BoundaryCodec.encode(small()), Fixtures.OTHER));
        assertEquals(RecordException.Reason.OTHER_SLED, e.reason());
    }

    @Test
    void malformedBytesAreRefusedWithAReason() {
        byte[] good = BoundaryCodec.encode(small());
        List<byte[]> bad = List.of(new byte[0], "garbage".getBytes(StandardCharsets.US_ASCII),
                java.util.Arrays.copyOf(good, good.length - 1), java.util.Arrays.copyOf(good, good.length + 1),
                CBOR.writeValueAsBytes(List.of(1)), CBOR.writeValueAsBytes(List.of(0, java.util.Map.of())),
                CBOR.writeValueAsBytes(List.of(1, java.util.Map.of("baseboard", Fixtures.ME))));
        for (byte[] b : bad) {
            RecordException e = assertThrows(RecordException.class, () -> BoundaryCodec.decode(b));
            assertEquals(RecordException.Reason.MALFORMED, e.reason(), e.getMessage());
        }
    }

    @Test
    void recordBytesOverTheBoundAreRefusedBeforeParsing() {
        RecordException e = assertThrows(RecordException.class,
                () -> BoundaryCodec.decode(new byte[BoundaryCodec.MAX_RECORD_BYTES + 1]));
        assertTrue(e.getMessage().contains("over " + BoundaryCodec.MAX_RECORD_BYTES), e.getMessage());
    }

    @Test
    void anUnknownFieldIsRefused() throws Exception {
        tools.jackson.databind.node.ArrayNode env = (tools.jackson.databind.node.ArrayNode) CBOR.readTree(
                BoundaryCodec.encode(small()));
        ((tools.jackson.databind.node.ObjectNode) env.get(1)).put("command", "rm -rf /");
        RecordException e = assertThrows(RecordException.class, () -> BoundaryCodec.decode(CBOR.writeValueAsBytes(env)));
        assertTrue(e.getMessage().contains("unknown field command"), e.getMessage());
    }

    @Test
    void aNonCanonicalEncodingIsRefused() throws Exception {
        // The same record with its fields in another order: equal content, different bytes.
        tools.jackson.databind.node.ArrayNode env = (tools.jackson.databind.node.ArrayNode) CBOR.readTree(
                BoundaryCodec.encode(small()));
        tools.jackson.databind.node.ObjectNode body = (tools.jackson.databind.node.ObjectNode) env.get(1);
        JsonNode amnesiac = body.remove("amnesiac");
        tools.jackson.databind.node.ObjectNode reordered = CBOR.createObjectNode();
        reordered.set("amnesiac", amnesiac);
        reordered.setAll(body);
        env.set(1, reordered);
        RecordException e = assertThrows(RecordException.class, () -> BoundaryCodec.decode(CBOR.writeValueAsBytes(env)));
        assertTrue(e.getMessage().contains("canonical"), e.getMessage());
    }

    @Test
    void invalidRecordsCannotBeBuilt() {
        BoundaryRecord s = small();
        assertThrows(IllegalArgumentException.class, () -> new BoundaryRecord(s.baseboard(), Fixtures.universe(8),
                s.executed(), s.committed(), s.recent(), s.burned(), s.amnesiac()), "network is never a key of recent");
        assertThrows(IllegalArgumentException.class, () -> new BoundaryRecord("", s.network(), s.executed(),
                s.committed(), s.recent(), s.burned(), s.amnesiac()));
        assertThrows(IllegalArgumentException.class, () -> new BoundaryRecord(s.baseboard(),
                sush.gossip.set.NetworkId.BOOTSTRAPPING, s.executed(), s.committed(), List.of(), s.burned(), false));
    }

    private static BoundaryRecord recordWith(Outcome o) {
        BoundaryRecord s = small();
        return new BoundaryRecord(s.baseboard(), s.network(), s.executed(),
                Optional.of(s.committed().get().withOutcome(o)), s.recent(), s.burned(), s.amnesiac());
    }

    private static void collect(JsonNode n, Set<String> names) {
        if (n.isObject()) {
            for (String k : n.propertyNames()) {
                names.add(k);
                collect(n.get(k), names);
            }
        } else if (n.isArray()) {
            for (JsonNode e : n) {
                collect(e, names);
            }
        }
    }

    @Test
    void printsPinsWhenAsked() {
        if (System.getProperty("sush.printPins") != null) {
            System.out.println("SMALL=" + HexFormat.of().formatHex(BoundaryCodec.encode(small())));
            System.out.println("FULL_SHA3=" + HexFormat.of().formatHex(
                    sush.projections.id.Hashes.sha3Raw(BoundaryCodec.encode(Fixtures.full()))));
            System.out.println("FULL_BYTES=" + BoundaryCodec.encode(Fixtures.full()).length);
        }
        assertArrayEquals(BoundaryCodec.encode(small()), BoundaryCodec.encode(small()));
    }
}
