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

    /** A revocation's id (issue 36) is carried when given; one without (older builds') reads as "". */
    @Test
    void aRevocationsIdRoundTripsAndItsAbsenceReadsAsEmpty() throws MessageException {
        Message.OperatorRevoked r = new Message.OperatorRevoked(new sush.projections.id.KeyId(new byte[11]), "admin",
                "00112233445566778899aabbccddeeff");
        assertEquals(r, MessageCodec.decode(MessageCodec.encode(r)));
        org.junit.jupiter.api.Assertions.assertNotNull(DirectReader.read(MessageCodec.encode(r)), "read directly");
        assertEquals(MessageCodec.decodeWithJackson(MessageCodec.encode(r)), MessageCodec.decode(MessageCodec.encode(r)));
        Message.OperatorRevoked old = (Message.OperatorRevoked) Samples.all().get("operator-revoked");
        assertEquals("", ((Message.OperatorRevoked) MessageCodec.decode(MessageCodec.encode(old))).id());
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

    /**
     * A sled's times are optional fields of job-started, job-stopped and job-error: pinned here
     * with them; without them the bytes are format 1's as pinned above (a reader from before
     * them reads fields by name and ignores these).
     */
    @Test
    void aSledsTimesArePinnedOptionalFields() throws MessageException {
        long started = 1_796_165_000_123L;
        Message.JobStarted s = new Message.JobStarted(Samples.SLED, Samples.job(), started);
        Message.JobStopped stopped = ((Message.JobStopped) Samples.all().get("job-stopped")).timed(started,
                started + 1_234, 1_230);
        Message.JobErrored errored = ((Message.JobErrored) Samples.all().get("job-error")).timed(started,
                started + 5, 4);
        assertEquals(TIMED_STARTED, HexFormat.of().formatHex(MessageCodec.encode(s)));
        assertEquals(TIMED_STOPPED, HexFormat.of().formatHex(MessageCodec.encode(stopped)));
        assertEquals(TIMED_ERROR, HexFormat.of().formatHex(MessageCodec.encode(errored)));
        Message.JobStopped back = (Message.JobStopped) MessageCodec.decode(MessageCodec.encode(stopped));
        assertEquals(Long.valueOf(started), back.startedAtMs());
        assertEquals(Long.valueOf(started + 1_234), back.endedAtMs());
        assertEquals(Long.valueOf(1_230), back.durationMs());
        assertEquals(Long.valueOf(started), ((Message.JobStarted) MessageCodec.decode(MessageCodec.encode(s)))
                .startedAtMs());
        assertEquals(Long.valueOf(4), ((Message.JobErrored) MessageCodec.decode(MessageCodec.encode(errored)))
                .durationMs());
        Message.JobStopped untimed = (Message.JobStopped) MessageCodec.decode(HexFormat.of().parseHex(
                PINNED.get("job-stopped")));
        assertEquals(null, untimed.startedAtMs());
        assertEquals(null, untimed.durationMs());
        String negative = TIMED_STARTED.replace("1b000001a233c6dbbb", "3b000001a233c6dbbb");
        assertThrows(MessageException.class, () -> MessageCodec.decode(HexFormat.of().parseHex(negative)),
                "a time before the epoch is malformed");
    }

    private static final String TIMED_STARTED = "83016b6a6f622d73746172746564a36962617365626f617264773931332d303030303031393a42524d3432323230303031636a6f624b02020202020202020202026b7374617274656441744d731b000001a233c6dbbb";
    private static final String TIMED_STOPPED = "83016b6a6f622d73746f70706564aa6962617365626f617264773931332d303030303031393a42524d3432323230303031636a6f624b02020202020202020202026865786974436f6465006b7374646f757442797465730c6a7374646f757453686133582008080808080808080808080808080808080808080808080808080808080808086b7374646572724279746573006a73746465727253686133582009090909090909090909090909090909090909090909090909090909090909096b7374617274656441744d731b000001a233c6dbbb69656e64656441744d731b000001a233c6e08d6a6475726174696f6e4d731904ce";
    private static final String TIMED_ERROR = "8301696a6f622d6572726f72a86962617365626f617264773931332d303030303031393a42524d3432323230303031636a6f624b0202020202020202020202656572726f72666b696c6c65646664657461696c7373746f70706564206279206f70657261746f72667369676e616c096b7374617274656441744d731b000001a233c6dbbb69656e64656441744d731b000001a233c6dbc06a6475726174696f6e4d7304";

    /**
     * A job's own limits (D-031) and a sled's API address are optional fields too: pinned with
     * them, and without them the bytes are format 1's (the pins above).
     */
    @Test
    void jobLimitsAndAnnouncedApiArePinnedOptionalFields() throws MessageException {
        Message.JobStart plain = (Message.JobStart) Samples.all().get("job-start");
        sush.projections.job.JobRequest r = plain.job().request();
        sush.projections.job.JobLimits asked = new sush.projections.job.JobLimits(30_000, 1 << 20, 10, 0, 4096);
        Message.JobStart limited = new Message.JobStart(new sush.projections.job.SignedJob(
                new sush.projections.job.JobRequest(r.session(), r.job(), r.command(), r.target(), r.concurrent(), asked),
                plain.job().key(), plain.job().algorithm(), plain.job().signature()));
        assertEquals(LIMITED_START, HexFormat.of().formatHex(MessageCodec.encode(limited)));
        assertEquals(asked, ((Message.JobStart) MessageCodec.decode(MessageCodec.encode(limited))).job().request()
                .limits());
        assertEquals(sush.projections.job.JobLimits.NONE, ((Message.JobStart) MessageCodec.decode(HexFormat.of()
                .parseHex(PINNED.get("job-start")))).job().request().limits());
        Message.Announcement a = new Message.Announcement(Samples.SLED, "0.1.0", 7, "https://[fd00::1]:12225");
        assertEquals(API_ANNOUNCEMENT, HexFormat.of().formatHex(MessageCodec.encode(a)));
        assertEquals(a, MessageCodec.decode(MessageCodec.encode(a)));
        assertEquals(null, ((Message.Announcement) MessageCodec.decode(HexFormat.of().parseHex(PINNED.get(
                "announcement")))).api());
        String zeroCpu = LIMITED_START.replace("6a6370755365636f6e64730a", "6a6370755365636f6e647300");
        assertNotEquals(LIMITED_START, zeroCpu);
        assertThrows(MessageException.class, () -> MessageCodec.decode(HexFormat.of().parseHex(zeroCpu)),
                "an asked limit of 0 is malformed (absent means not asked)");
    }

    /** D-034: a job's mode is an optional field; recorded is its absence, never written. */
    @Test
    void aJobsModeIsAPinnedOptionalField() throws MessageException {
        Message.JobStart plain = (Message.JobStart) Samples.all().get("job-start");
        sush.projections.job.JobRequest r = plain.job().request();
        Message.JobStart interactive = new Message.JobStart(new sush.projections.job.SignedJob(
                new sush.projections.job.JobRequest(r.session(), r.job(), r.command(), r.target(), r.concurrent(),
                        sush.projections.job.JobLimits.NONE, sush.projections.job.JobMode.INTERACTIVE),
                plain.job().key(), plain.job().algorithm(), plain.job().signature()));
        String hex = HexFormat.of().formatHex(MessageCodec.encode(interactive));
        assertEquals(PINNED.get("job-start").replace("8301696a6f622d7374617274a8", "8301696a6f622d7374617274a9")
                + "646d6f64656b696e746572616374697665", hex);
        assertEquals(sush.projections.job.JobMode.INTERACTIVE, ((Message.JobStart) MessageCodec.decode(
                MessageCodec.encode(interactive))).job().request().mode());
        String recorded = hex.replace("6b696e746572616374697665", "687265636f72646564");
        assertThrows(MessageException.class, () -> MessageCodec.decode(HexFormat.of().parseHex(recorded)),
                "recorded is the field's absence");
    }

    private static final String LIMITED_START = "8301696a6f622d7374617274ac6773657373696f6e4b0101010101010101010101636a6f624b020202020202020202020267636f6d6d616e6466757074696d6566746172676574612a6a636f6e63757272656e74f4636b65794b050505050505050505050569616c676f726974686d6765643235353139697369676e61747572655840"
            + "06".repeat(64) + "6a77616c6c54696d654d731975306b6f757470757442797465731a001000006a6370755365636f6e64730a6d66696c6553697a654279746573191000";
    private static final String API_ANNOUNCEMENT = "83016c616e6e6f756e63656d656e74a46962617365626f617264773931332d303030303031393a42524d343232323030303168736f66747761726565302e312e3065637562627907636170697768747470733a2f2f5b666430303a3a315d3a3132323235";

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
