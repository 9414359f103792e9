package sush.locker.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import sush.locker.Fixtures;
import sush.projections.fold.JobStatus;
import sush.projections.id.KeyId;
import sush.projections.id.SessionRank;

/** The {@code signed} record's bytes: pinned, strict, and never mistaken for a causal record. */
class SignedCodecTest {
    /** Format 1 of a signed record with its committed job ended: never re-pinned. */
    static final String PINNED = "8201a4686f72646572696e67667369676e65646962617365626f617264773931332d303030303031393a42524d343232"
            + "323030303165666c6f6f721b0000018bcfe5680069636f6d6d6974746564a86773657373696f6e4bf29925f2a74d3baf"
            + "2d148e6565706f63681b0000019ada5b2e00667369676e65724b0700000000000000000000636a6f624b404d0a27facb"
            + "1c8236ee5969737563636573736f724bf2002fbeae65c2b6f4f2eb676f7574636f6d65656572726f7264636f64650966"
            + "64657461696c666b696c6c6564";

    private static SignedRecord sample() {
        byte[] signer = new byte[11];
        signer[0] = 7;
        SessionRank s = new SessionRank(1_764_600_000_000L, new KeyId(signer), Fixtures.session("s"));
        return new SignedRecord(Fixtures.ME, 1_700_000_000_000L, Optional.of(new SignedCommitted(s,
                Fixtures.job(s.session(), 2), Fixtures.successor(Fixtures.job(s.session(), 2)),
                Outcome.ended(JobStatus.ERROR, 9, "killed"))));
    }

    @Test
    void aSignedRecordEncodesToItsPinnedBytesAndRoundTrips() throws Exception {
        byte[] bytes = SignedCodec.encode(sample());
        assertEquals(PINNED, HexFormat.of().formatHex(bytes));
        assertEquals(sample(), SignedCodec.decode(bytes, Fixtures.ME));
        SignedRecord fresh = SignedRecord.provisioned(Fixtures.ME, 0);
        assertEquals(fresh, SignedCodec.decode(SignedCodec.encode(fresh)));
        for (Outcome o : List.of(Outcome.COMMITTED, Outcome.ended(JobStatus.STOPPED, 0, ""),
                Outcome.ended(JobStatus.SKIPPED, 0, ""), Outcome.ended(JobStatus.INTERRUPTED, 0, ""))) {
            SignedRecord r = new SignedRecord(Fixtures.ME, 5, Optional.of(sample().committed().get().withOutcome(o)));
            assertEquals(r, SignedCodec.decode(SignedCodec.encode(r)));
        }
    }

    @Test
    void neitherOrderingsRecordIsReadAsTheOther() {
        RecordException causal = assertThrows(RecordException.class,
                () -> SignedCodec.decode(BoundaryCodec.encode(Fixtures.full())));
        assertEquals(RecordException.Reason.ORDERING_MISMATCH, causal.reason());
        assertTrue(causal.getMessage().contains("locker convert"), causal.getMessage());
        RecordException signed = assertThrows(RecordException.class,
                () -> BoundaryCodec.decode(SignedCodec.encode(sample())));
        assertEquals(RecordException.Reason.ORDERING_MISMATCH, signed.reason());
    }

    @Test
    void anotherSledsRecordIsRefused() {
        RecordException e = assertThrows(RecordException.class,
                () -> SignedCodec.decode(SignedCodec.encode(sample()), Fixtures.OTHER));
        assertEquals(RecordException.Reason.OTHER_SLED, e.reason());
    }

    private static ArrayNode tree() {
        return (ArrayNode) BoundaryCodec.CBOR.readTree(SignedCodec.encode(sample()));
    }

    private static RecordException.Reason refusal(ArrayNode envelope) {
        byte[] bytes = BoundaryCodec.CBOR.writeValueAsBytes(envelope);
        return assertThrows(RecordException.class, () -> SignedCodec.decode(bytes)).reason();
    }

    @Test
    void everyFieldIsCheckedAndUnknownOrMissingFieldsAreRefused() {
        String[] fields = {"baseboard", "floor", "committed"};
        for (String f : fields) {
            ArrayNode t = tree();
            ((ObjectNode) t.get(1)).remove(f);
            assertEquals(RecordException.Reason.MALFORMED, refusal(t), "missing " + f);
        }
        ArrayNode extra = tree();
        ((ObjectNode) extra.get(1)).put("network", new byte[16]);
        assertEquals(RecordException.Reason.MALFORMED, refusal(extra));
        for (String f : new String[] {"session", "epoch", "signer", "job", "successor", "outcome", "code", "detail"}) {
            ArrayNode t = tree();
            ((ObjectNode) t.get(1).get("committed")).remove(f);
            assertEquals(RecordException.Reason.MALFORMED, refusal(t), "committed without " + f);
            ArrayNode wrong = tree();
            ((ObjectNode) wrong.get(1).get("committed")).put(f, f.equals("outcome") || f.equals("detail") ? 1 : 0);
            if (!f.equals("code")) {
                assertEquals(RecordException.Reason.MALFORMED, refusal(wrong), "committed." + f + " mistyped");
            }
        }
        ArrayNode negativeFloor = tree();
        ((ObjectNode) negativeFloor.get(1)).put("floor", -1);
        assertEquals(RecordException.Reason.MALFORMED, refusal(negativeFloor));
        ArrayNode belowFloor = tree();
        ((ObjectNode) belowFloor.get(1).get("committed")).put("epoch", 1_700_000_000_000L);
        assertEquals(RecordException.Reason.MALFORMED, refusal(belowFloor), "a committed session at the floor");
        ArrayNode notSigned = tree();
        ((ObjectNode) notSigned.get(1)).put("ordering", "causal");
        assertEquals(RecordException.Reason.ORDERING_MISMATCH, refusal(notSigned));
        ArrayNode newer = tree();
        newer.set(0, BoundaryCodec.CBOR.getNodeFactory().numberNode(2));
        assertEquals(RecordException.Reason.NEWER_FORMAT, refusal(newer));
    }

    @Test
    void aNonCanonicalEncodingIsRefused() throws Exception {
        byte[] bytes = SignedCodec.encode(sample());
        byte[] longer = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, longer, 0, bytes.length);
        assertThrows(RecordException.class, () -> SignedCodec.decode(longer));
        ArrayNode reordered = BoundaryCodec.CBOR.createArrayNode();
        reordered.add(1);
        ObjectNode body = reordered.addObject();
        ObjectNode original = (ObjectNode) tree().get(1);
        List.of("floor", "ordering", "committed", "baseboard").forEach(f -> body.set(f, original.get(f)));
        assertEquals(RecordException.Reason.MALFORMED, refusal(reordered), "fields in another order");
    }
}
