package sush.projections.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import java.util.Map;

import org.junit.jupiter.api.Test;

import tools.jackson.dataformat.cbor.CBORMapper;

class MessageCodecTest {
    /** Format 1, pinned once: never re-pin; a change of bytes is a new format version. */
    private static final Map<String, String> PINNED = Pinned.FORMAT_1;

    @Test
    void everyKindEncodesToItsPinnedBytes() {
        Samples.all().forEach((kind, message) -> assertEquals(PINNED.get(kind),
                HexFormat.of().formatHex(MessageCodec.encode(message)), kind));
        assertEquals(Samples.all().keySet(), PINNED.keySet());
    }

    @Test
    void everyKindRoundTrips() throws MessageException {
        for (Message m : Samples.all().values()) {
            byte[] bytes = MessageCodec.encode(m);
            Message back = MessageCodec.decode(bytes);
            assertEquals(m.getClass(), back.getClass());
            assertArrayEquals(bytes, MessageCodec.encode(back));
        }
    }

    @Test
    void newerFormatsAndUnknownKindsAreKeptVerbatim() throws MessageException {
        CBORMapper cbor = CBORMapper.builder().build();
        for (Object[] envelope : new Object[][] {{2, "job-start"}, {1, "job-teleport"}}) {
            var array = cbor.createArrayNode().add((Integer) envelope[0]).add((String) envelope[1]);
            array.add(cbor.createObjectNode().put("anything", 1));
            byte[] bytes = cbor.writeValueAsBytes(array);
            Message.Unknown u = assertInstanceOf(Message.Unknown.class, MessageCodec.decode(bytes));
            assertArrayEquals(bytes, MessageCodec.encode(u), "relayed unchanged");
        }
    }

    @Test
    void malformedPayloadsAreTypedErrors() {
        String start = PINNED.get("job-started");
        for (String hex : new String[] {"", "ff", "a0", "83010203", "8300636a6f62a0",
            start.replace("4b02", "4a02").substring(0, start.length() - 2)}) {
            assertThrows(MessageException.class, () -> MessageCodec.decode(HexFormat.of().parseHex(hex)), hex);
        }
        byte[] badCubby = MessageCodec.encode(new Message.Announcement("a:b", "x", 40));
        assertThrows(MessageException.class, () -> MessageCodec.decode(badCubby), "cubby outside 0..31");
        byte[] badReason = MessageCodec.encode(new Message.JobSkipped("a:b", Samples.job(), Message.SkipReason.SUPERSEDED));
        String hex = HexFormat.of().formatHex(badReason).replace(HexFormat.of().formatHex("superseded".getBytes()),
                HexFormat.of().formatHex("teleported".getBytes()));
        assertThrows(MessageException.class, () -> MessageCodec.decode(HexFormat.of().parseHex(hex)), "unknown reason");
        assertThrows(MessageException.class, () -> MessageCodec.decode(new byte[MessageCodec.MAX_MESSAGE_BYTES + 1]));
    }

    @Test
    void aSessionStartWithAShortSledNonceAndTextWithALoneSurrogateAreMalformed() {
        Message.SessionStart shortNonce = new Message.SessionStart(Samples.session(), Samples.SLED, new byte[31],
                new byte[4], "op");
        assertThrows(MessageException.class, () -> MessageCodec.decode(MessageCodec.encode(shortNonce)));
        byte[] lone = MessageCodec.encode(new Message.JobStarted("p:s-XYZ", Samples.job()));
        String hex = HexFormat.of().formatHex(lone).replace(HexFormat.of().formatHex("XYZ".getBytes()), "eda080");
        assertThrows(MessageException.class, () -> MessageCodec.decode(HexFormat.of().parseHex(hex)));
    }

    /** A grant that cannot be one (no starter, a short nonce, an epoch past 2^63 - 1) is malformed, not a crash. */
    @Test
    void aMalformedSessionGrantIsATypedError() {
        byte[] good = MessageCodec.encode(Samples.all().get("session-grant"));
        String hex = java.util.HexFormat.of().formatHex(good);
        String noStarter = hex.replace("6773746172746572686f70657261746f72", "677374617274657260");
        String shortNonce = hex.replace("6b636c69656e744e6f6e6365582011", "6b636c69656e744e6f6e6365581f");
        String hugeEpoch = hex.replace("6565706f63681b0000019ada5b2e00", "6565706f63681bffffffffffffffff");
        for (String bad : new String[] {noStarter, shortNonce, hugeEpoch}) {
            assertNotEquals(hex, bad);
            byte[] bytes = java.util.HexFormat.of().parseHex(bad);
            org.junit.jupiter.api.Assertions.assertThrows(MessageException.class, () -> MessageCodec.decode(bytes), bad);
            org.junit.jupiter.api.Assertions.assertThrows(MessageException.class,
                    () -> MessageCodec.decodeWithJackson(bytes), bad);
        }
    }
}
