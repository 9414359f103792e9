package sush.projections.id;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

class CodephraseTest {
    private static final String WORD_LIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda";

    @Test
    void theWordListIsTheBip39EnglishList() throws Exception {
        try (InputStream in = Codephrase.class.getResourceAsStream(Codephrase.RESOURCE)) {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(in.readAllBytes());
            assertEquals(WORD_LIST_SHA256, HexFormat.of().formatHex(digest));
        }
        assertEquals(2048, Codephrase.words().size());
        assertEquals("abandon", Codephrase.words().get(0));
        assertEquals("zoo", Codephrase.words().get(2047));
    }

    @Test
    void idsPrintAsEightWordsAndParseBack() throws IdException {
        Random random = new Random(1);
        for (int i = 0; i < 500; i++) {
            byte[] bytes = new byte[Id88.BYTES];
            random.nextBytes(bytes);
            JobId id = new JobId(bytes);
            String phrase = id.codephrase();
            assertEquals(8, phrase.split("-").length, phrase);
            assertEquals(id, JobId.parse(phrase));
            assertEquals(id, JobId.parse(phrase.toUpperCase().replace('-', ' ')));
        }
    }

    /** Printing reads the digits from the bits; base-2048 division of the value gives the same words. */
    @Test
    void printingAgreesWithDivisionInBase2048() throws IdException {
        java.util.Random r = new java.util.Random(11);
        java.math.BigInteger base = java.math.BigInteger.valueOf(Codephrase.WORDS);
        for (int i = 0; i < 2_000; i++) {
            byte[] value = new byte[Id88.BYTES];
            r.nextBytes(value);
            java.math.BigInteger v = new java.math.BigInteger(1, value);
            String[] words = new String[8];
            for (int w = 7; w >= 0; w--) {
                words[w] = Codephrase.words().get(v.mod(base).intValue());
                v = v.divide(base);
            }
            String expected = String.join("-", words);
            assertEquals(expected, Codephrase.encode(value, Id88.BITS));
            assertEquals(java.util.HexFormat.of().formatHex(value),
                    java.util.HexFormat.of().formatHex(Codephrase.decode(expected, Id88.BITS, Id88.BYTES)));
        }
    }

    @Test
    void theZeroAndLargestIdsAreTheEndsOfTheList() throws IdException {
        assertEquals("abandon-abandon-abandon-abandon-abandon-abandon-abandon-abandon",
                new SessionId(new byte[Id88.BYTES]).codephrase());
        byte[] max = new byte[Id88.BYTES];
        java.util.Arrays.fill(max, (byte) 0xFF);
        assertEquals("zoo-zoo-zoo-zoo-zoo-zoo-zoo-zoo", new SessionId(max).codephrase());
        assertArrayEquals(max, SessionId.parse("Zoo Zoo zoo-zoo  zoo-zoo-zoo-zoo").toBytes());
    }

    @Test
    void unknownWordsAndOutOfRangeValuesAreRefused() {
        assertThrows(IdException.class, () -> JobId.parse("abandon-notaword-abandon"));
        assertThrows(IdException.class, () -> JobId.parse(""));
        assertThrows(IdException.class, () -> JobId.parse("ability-zoo-zoo-zoo-zoo-zoo-zoo-zoo-zoo"));
    }

    @Test
    void idsOfDifferentKindsAreNeverEqual() {
        byte[] bytes = new byte[Id88.BYTES];
        assertNotEquals(new JobId(bytes), new SessionId(bytes));
        assertTrue(new JobId(bytes).equals(new JobId(bytes.clone())));
    }
}
