package sush.projections.id;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints ids as BIP-39 English words: the value in big-endian base 2048, one word per 11-bit
 * digit, hyphen-joined. Parsing is case-insensitive, takes hyphens or spaces, and refuses unknown
 * words and values that do not fit.
 */
public final class Codephrase {
    /** The word list has 2048 words: one per 11-bit digit. */
    public static final int WORDS = 2048;
    static final String RESOURCE = "/sush/projections/id/bip39-english.txt";

    private static final List<String> LIST = load();
    private static final Map<String, Integer> INDEX = index(LIST);
    private static final BigInteger BASE = BigInteger.valueOf(WORDS);

    private Codephrase() {
    }

    /** The words of a big-endian unsigned value of {@code bits} bits (11 bits per word). */
    public static String encode(byte[] value, int bits) {
        int words = (bits + 10) / 11;
        // Digit i (from the least significant) is bits 11i..11i+10 of the value: read them
        // straight from the bytes (ids are printed in every status and timeline line).
        StringBuilder out = new StringBuilder(words * 9);
        for (int i = words - 1; i >= 0; i--) {
            int digit = 0;
            for (int bit = 11 * i + 10; bit >= 11 * i; bit--) {
                int at = value.length - 1 - bit / 8;
                digit = (digit << 1) | (at >= 0 ? (value[at] >> (bit % 8)) & 1 : 0);
            }
            if (out.length() > 0) {
                out.append('-');
            }
            out.append(LIST.get(digit));
        }
        return out.toString();
    }

    /** The value of a phrase as {@code bytes} big-endian bytes; at most {@code bits} bits. */
    public static byte[] decode(String phrase, int bits, int bytes) throws IdException {
        String trimmed = phrase.trim();
        if (trimmed.isEmpty()) {
            throw new IdException("empty codephrase");
        }
        BigInteger v = BigInteger.ZERO;
        for (String word : trimmed.split("[-\\s]+")) {
            Integer digit = INDEX.get(word.toLowerCase(Locale.ROOT));
            if (digit == null) {
                throw new IdException("'" + word + "' is not a codephrase word");
            }
            v = v.multiply(BASE).add(BigInteger.valueOf(digit));
        }
        if (v.bitLength() > bits) {
            throw new IdException("codephrase '" + phrase + "' is out of range for " + bits + " bits");
        }
        byte[] raw = v.toByteArray();
        byte[] out = new byte[bytes];
        int copy = Math.min(raw.length, bytes);
        System.arraycopy(raw, raw.length - copy, out, bytes - copy, copy);
        return out;
    }

    static List<String> words() {
        return LIST;
    }

    private static List<String> load() {
        try (InputStream in = Codephrase.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("word list " + RESOURCE + " missing from the jar");
            }
            List<String> words = new ArrayList<>(WORDS);
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.isBlank()) {
                    words.add(line.trim());
                }
            }
            if (words.size() != WORDS) {
                throw new IllegalStateException("word list has " + words.size() + " words, not " + WORDS);
            }
            return List.copyOf(words);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Integer> index(List<String> words) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < words.size(); i++) {
            index.put(words.get(i), i);
        }
        return Map.copyOf(index);
    }
}
