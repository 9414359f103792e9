package sush.projections.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import sush.projections.id.Id88;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedJob;

/**
 * The direct reader is only a faster way to the Jackson path's answer: for generated messages
 * and for every mutation of them, {@link MessageCodec#decode} and the Jackson decoder agree on
 * the message or on the exact error (D-018, seeded properties as D-006).
 */
class DirectReaderTest {
    private static final HexFormat HEX = HexFormat.of();

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void generatedMessagesDecodeAsJacksonDecodesThemAndPlainOnesTakeTheDirectPath(long seed) {
        Random r = new Random(seed);
        int direct = 0;
        for (int i = 0; i < 2_000; i++) {
            boolean ascii = r.nextInt(4) != 0;
            byte[] bytes = MessageCodec.encode(message(r, ascii));
            assertSame(bytes);
            if (ascii) {
                assertNotNull(DirectReader.read(bytes), () -> "plain message left to Jackson: " + HEX.formatHex(bytes));
                direct++;
            }
        }
        assertEquals(true, direct > 1_000);
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void everyMutationOfAMessageGetsTheSameAnswerFromBothPaths(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < 400; i++) {
            byte[] bytes = MessageCodec.encode(message(r, r.nextBoolean()));
            for (int k = 0; k < 25; k++) {
                assertSame(mutate(r, bytes));
            }
        }
    }

    @Test
    void formsOutsideThePlainOneAreLeftToJacksonAndDecodeTheSame() {
        String started = Pinned.FORMAT_1.get("job-started");
        String[] variants = {
            // the version as a one-byte argument; the map as an indefinite one
            started.replaceFirst("^8301", "831801"),
            started.replace("a2696261", "bf696261") + "ff",
            // a tag before the job id; a float where an integer belongs
            started.replace("636a6f624b", "636a6f62c24b"),
            Pinned.FORMAT_1.get("announcement").replace("6563756262790" + "7", "65637562627" + "9f94700"),
            // a repeated field; trailing bytes; a nested map as a value
            started.replace("a26962", "a3636a6f624b0202020202020202020202696" + "2"),
            started + "00",
            started.replace("636a6f624b0202020202020202020202", "636a6f62a0"),
            // integers past 64 bits, positive and negative
            Pinned.FORMAT_1.get("announcement").replace("656375626279" + "07", "6563756262791bffffffffffffffff"),
            Pinned.FORMAT_1.get("announcement").replace("656375626279" + "07", "6563756262793bffffffffffffffff"),
        };
        for (String hex : variants) {
            byte[] bytes = HEX.parseHex(hex);
            assertNull(DirectReader.read(bytes), hex);
            assertSame(bytes);
        }
        // An extra field with a long name: Jackson bounds names (50,000 by default), so such
        // names are its to judge, accepted (300) or refused (50,001) alike on both paths.
        for (int length : new int[] {300, 50_001}) {
            var body = cbor().createObjectNode().put("baseboard", "a:b").put("software", "x").put("cubby", 3)
                    .put("n".repeat(length), 1);
            byte[] bytes = cbor().writeValueAsBytes(cbor().createArrayNode().add(1).add("announcement").add(body));
            assertNull(DirectReader.read(bytes), "a name of " + length);
            assertSame(bytes);
        }
        assertEquals(length50001IsRefused(), true);
        // Plain forms, read directly: the pins, and 64-bit integers at both ends (out of range for a cubby).
        List<String> plain = new ArrayList<>(Pinned.FORMAT_1.values());
        plain.add(Pinned.FORMAT_1.get("announcement").replace("656375626279" + "07", "6563756262791b7fffffffffffffff"));
        plain.add(started.replaceFirst("a269", "a27809")); // a name's length not in its shortest form
        plain.add(Pinned.FORMAT_1.get("announcement").replace("656375626279" + "07", "6563756262793b7fffffffffffffff"));
        for (String hex : plain) {
            assertNotNull(DirectReader.read(HEX.parseHex(hex)), hex);
            assertSame(HEX.parseHex(hex));
        }
    }

    private static tools.jackson.dataformat.cbor.CBORMapper cbor() {
        return tools.jackson.dataformat.cbor.CBORMapper.builder().build();
    }

    /** The Jackson path refuses a 50,001-character name: the case above is a real difference. */
    private static boolean length50001IsRefused() {
        var body = cbor().createObjectNode().put("baseboard", "a:b").put("software", "x").put("cubby", 3)
                .put("n".repeat(50_001), 1);
        byte[] bytes = cbor().writeValueAsBytes(cbor().createArrayNode().add(1).add("announcement").add(body));
        return outcome(() -> MessageCodec.decodeWithJackson(bytes)).startsWith("error");
    }

    /** Both decoders give the same message (same kind and bytes) or the same error text. */
    private static void assertSame(byte[] bytes) {
        assertEquals(outcome(() -> MessageCodec.decodeWithJackson(bytes)), outcome(() -> MessageCodec.decode(bytes)),
                () -> HEX.formatHex(bytes));
    }

    private interface Decode {
        Message get() throws MessageException;
    }

    private static String outcome(Decode d) {
        try {
            Message m = d.get();
            return m.getClass().getSimpleName() + " " + HEX.formatHex(MessageCodec.encode(m));
        } catch (MessageException e) {
            return "error " + e.getMessage();
        }
    }

    private static byte[] mutate(Random r, byte[] bytes) {
        List<Byte> b = new ArrayList<>();
        for (byte x : bytes) {
            b.add(x);
        }
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits && !b.isEmpty(); e++) {
            int at = r.nextInt(b.size());
            switch (r.nextInt(5)) {
                case 0: b.set(at, (byte) r.nextInt(256)); break;
                case 1: b.set(at, (byte) (b.get(at) ^ (1 << r.nextInt(8)))); break;
                case 2: b.add(at, (byte) r.nextInt(256)); break;
                case 3: b.remove(at); break;
                default: b.subList(at, b.size()).clear(); break;
            }
        }
        byte[] out = new byte[b.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.get(i);
        }
        return out;
    }

    private static Message message(Random r, boolean ascii) {
        switch (r.nextInt(11)) {
            case 0: return new Message.SessionStart(session(r), text(r, ascii), bytes(r, 32), bytes(r, r.nextInt(40)),
                    text(r, ascii));
            case 1: return new Message.SessionStop(session(r), text(r, ascii));
            case 2: return new Message.JobSkip(session(r), job(r), text(r, ascii));
            case 3: return new Message.JobStart(new SignedJob(new JobRequest(session(r), job(r), text(r, ascii),
                    text(r, ascii), r.nextBoolean()), new KeyId(bytes(r, Id88.BYTES)),
                    SignatureAlgorithm.values()[r.nextInt(SignatureAlgorithm.values().length)], bytes(r, 64 + r.nextInt(9))));
            case 4: return new Message.JobStop(job(r), text(r, ascii));
            case 5: return new Message.Announcement(text(r, ascii), text(r, ascii), r.nextInt(32));
            case 6: return new Message.JobStarted(text(r, ascii), job(r));
            case 7: {
                boolean exited = r.nextBoolean();
                return new Message.JobStopped(text(r, ascii), job(r), exited ? number(r) : null,
                        exited ? null : text(r, ascii), Math.abs(r.nextLong() >> r.nextInt(64)), bytes(r, 32),
                        r.nextInt(5), bytes(r, 32));
            }
            case 8: return new Message.JobErrored(text(r, ascii), job(r),
                    Message.JobError.values()[r.nextInt(Message.JobError.values().length)], text(r, ascii), r.nextInt(256));
            case 9: return new Message.JobSkipped(text(r, ascii), job(r),
                    Message.SkipReason.values()[r.nextInt(Message.SkipReason.values().length)]);
            default: return new Message.RackError(text(r, ascii),
                    Message.RackErrorKind.values()[r.nextInt(Message.RackErrorKind.values().length)], session(r),
                    text(r, ascii));
        }
    }

    private static int number(Random r) {
        int[] edges = {0, 1, -1, 23, 24, -24, -25, 255, 256, 65535, 65536, Integer.MAX_VALUE, Integer.MIN_VALUE};
        return r.nextBoolean() ? edges[r.nextInt(edges.length)] : r.nextInt();
    }

    private static String text(Random r, boolean ascii) {
        int n = r.nextInt(4) == 0 ? r.nextInt(300) : r.nextInt(30);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append(ascii ? (char) r.nextInt(128) : "aé€\uD83D\uDE00-:Z".charAt(r.nextInt(8)));
        }
        String t = s.toString();
        // Keep surrogate pairs whole: a lone half cannot be encoded at all.
        return t.replace("\uD83D", "").replace("\uDE00", "\uD83D\uDE00");
    }

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static SessionId session(Random r) {
        return new SessionId(bytes(r, Id88.BYTES));
    }

    private static JobId job(Random r) {
        return new JobId(bytes(r, Id88.BYTES));
    }
}
