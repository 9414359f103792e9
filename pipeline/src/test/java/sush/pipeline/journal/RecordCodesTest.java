package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Version;

/** Journal records name their enums by fixed codes, never ordinals (issue 16): pinned bytes. */
class RecordCodesTest {
    @Test
    void everyKindAndVerdictHasOneCodeAndTheCodesArePinned() {
        assertEquals(EnumSet.allOf(JournalRecord.Decision.Kind.class), Set.of(RecordCodec.KIND_CODES));
        assertEquals(EnumSet.allOf(JournalRecord.Signature.class), Set.of(RecordCodec.SIGNATURE_CODES));
        assertEquals(List.of("ENTRY", "FLOOR", "VERDICT", "COMMIT", "LAUNCH", "SKIP", "ENDING", "ERROR"),
                java.util.Arrays.stream(RecordCodec.KIND_CODES).map(Enum::name).toList());
        assertEquals(List.of("UNCHECKED", "GOOD", "UNKNOWN_KEY", "BAD_SIGNATURE"),
                java.util.Arrays.stream(RecordCodec.SIGNATURE_CODES).map(Enum::name).toList());
        for (JournalRecord.Decision.Kind k : JournalRecord.Decision.Kind.values()) {
            assertEquals(k, RecordCodec.kind(RecordCodec.kindCode(k)));
        }
    }

    @Test
    void aDecisionAndACheckedDeliveryHaveTheirPinnedBytes() throws Exception {
        JournalRecord.Decision d = new JournalRecord.Decision(JournalRecord.Decision.Kind.COMMIT, "j", "ok");
        assertEquals("0303016a026f6b", HexFormat.of().formatHex(RecordCodec.encode(d)));
        assertEquals(d, RecordCodec.decode(HexFormat.of().parseHex("0303016a026f6b")));
        JournalRecord.Delivered x = new JournalRecord.Delivered(Version.ZERO, new byte[] {7},
                JournalRecord.Signature.BAD_SIGNATURE);
        byte[] bytes = RecordCodec.encode(x);
        String hex = HexFormat.of().formatHex(bytes);
        assertEquals("06", hex.substring(0, 2), "a checked delivery");
        assertEquals("03", hex.substring(hex.length() - 2), "BAD_SIGNATURE is code 3 on disk");
        assertEquals(JournalRecord.Signature.BAD_SIGNATURE, ((JournalRecord.Delivered) RecordCodec.decode(bytes))
                .signature());
    }

    @Test
    void anUnknownCodeIsACorruptRecordNotAnException() {
        JournalException e = assertThrows(JournalException.class,
                () -> RecordCodec.decode(HexFormat.of().parseHex("0308016a026f6b")));
        assertEquals(JournalException.Kind.CORRUPT, e.kind());
    }

    /** A value without a code (as a new enum constant would be) is refused by name, never an index error. */
    @Test
    void aValueWithoutACodeIsRefusedByName() {
        assertTrue(assertThrows(IllegalStateException.class, () -> RecordCodec.signatureCode(null)).getMessage()
                .startsWith("null has no journal code"));
        assertThrows(IllegalStateException.class, () -> RecordCodec.kindCode(null));
    }

    /** A delivery cut right after its version is refused for its missing payload, not its version. */
    @Test
    void aDeliveryCutAfterItsVersionIsMissingItsPayload() throws Exception {
        JournalRecord.Delivered x = new JournalRecord.Delivered(Version.ZERO.tick(sush.gossip.clock.Id.ONE),
                new byte[] {7, 8});
        byte[] bytes = RecordCodec.encode(x);
        int versionBytes = x.version().toBytes().length;
        assertTrue(versionBytes < 128, "a one-byte length");
        byte[] cut = java.util.Arrays.copyOf(bytes, 2 + versionBytes);
        JournalException e = assertThrows(JournalException.class, () -> RecordCodec.decode(cut));
        assertEquals(JournalException.Kind.CORRUPT, e.kind());
        assertFalse(e.getMessage().contains("version"), e.getMessage());
        JournalException inside = assertThrows(JournalException.class,
                () -> RecordCodec.decode(java.util.Arrays.copyOf(bytes, 1 + versionBytes)));
        assertTrue(inside.getMessage().contains("version cut short"), inside.getMessage());
    }
}
