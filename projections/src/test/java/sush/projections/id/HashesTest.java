package sush.projections.id;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The hashing behind ids and chains: SHA3-256 as FIPS 202 defines it, framed as documented. */
class HashesTest {
    @Test
    void knownAnswers() {
        assertEquals("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
                HexFormat.of().formatHex(Hashes.sha3Raw(new byte[0])));
        assertEquals("3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
                HexFormat.of().formatHex(Hashes.sha3Raw("abc".getBytes(StandardCharsets.US_ASCII))));
    }

    /** The per-thread digest gives what a fresh JDK digest gives, framing included, many times over. */
    @Test
    void agreesWithTheJdkDigestOverRandomFieldLists() throws Exception {
        Random r = new Random(7);
        for (int i = 0; i < 500; i++) {
            byte[][] fields = new byte[r.nextInt(5)][];
            MessageDigest jdk = MessageDigest.getInstance("SHA3-256");
            String tag = "tag" + i;
            frame(jdk, tag.getBytes(StandardCharsets.UTF_8));
            for (int f = 0; f < fields.length; f++) {
                fields[f] = new byte[r.nextInt(300)];
                r.nextBytes(fields[f]);
                frame(jdk, fields[f]);
            }
            assertArrayEquals(jdk.digest(), Hashes.sha3(tag, fields));
            assertArrayEquals(MessageDigest.getInstance("SHA3-256").digest(fields.length > 0 ? fields[0] : new byte[0]),
                    Hashes.sha3Raw(fields.length > 0 ? fields[0] : new byte[0]));
        }
    }

    @Test
    void aFailedDigestLeavesNothingBehindForTheNext() {
        byte[] expected = Hashes.sha3("None", new byte[] {1});
        assertThrows(NullPointerException.class, () -> Hashes.sha3("None", new byte[] {9}, null));
        assertArrayEquals(expected, Hashes.sha3("None", new byte[] {1}));
    }

    private static void frame(MessageDigest d, byte[] field) {
        d.update(ByteBuffer.allocate(4).putInt(field.length).array());
        d.update(field);
    }

    @Test
    void aFieldOverSixteenMebibytesIsFramedWithItsWholeLength() throws Exception {
        // The 4-byte big-endian length of every field, checked against the JDK's SHA3-256 over
        // the same framing with a field long enough to use all four length bytes.
        byte[] big = new byte[(1 << 24) + (1 << 16) + 3]; // length bytes 01 01 00 03
        big[5] = 1;
        java.security.MessageDigest jdk = java.security.MessageDigest.getInstance("SHA3-256");
        for (byte[] f : new byte[][] {"tag".getBytes(java.nio.charset.StandardCharsets.UTF_8), big}) {
            jdk.update(java.nio.ByteBuffer.allocate(4).putInt(f.length).array());
            jdk.update(f);
        }
        org.junit.jupiter.api.Assertions.assertArrayEquals(jdk.digest(), Hashes.sha3("tag", big));
        java.security.MessageDigest parts = Hashes.sha3();
        parts.update(new byte[] {1, 2});
        org.junit.jupiter.api.Assertions.assertArrayEquals(Hashes.sha3Raw(new byte[] {1, 2}), parts.digest());
    }

    @Test
    void anIdIsItsBytesAndAKeyIdParsesFromItsCodephrase() throws Exception {
        byte[] b = new byte[Id88.BYTES];
        b[3] = 7;
        KeyId k = new KeyId(b);
        org.junit.jupiter.api.Assertions.assertTrue(k.is(b.clone()));
        byte[] other = b.clone();
        other[3] = 8;
        org.junit.jupiter.api.Assertions.assertFalse(k.is(other));
        org.junit.jupiter.api.Assertions.assertEquals(k, KeyId.parse(k.codephrase()));
    }
}
