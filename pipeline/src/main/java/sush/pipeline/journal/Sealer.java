package sush.pipeline.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import sush.gossip.Entropy;

/**
 * AES-256-GCM (Bouncy Castle) over journal records: a fresh 12-byte nonce per record from the
 * injected entropy, a 128-bit tag, and the record's position as associated data, so records
 * cannot be swapped, dropped from the middle unnoticed, or read with the wrong key.
 */
final class Sealer {
    static final int KEY_BYTES = 32;
    static final int NONCE_BYTES = 12;
    static final int TAG_BITS = 128;

    private final byte[] key;
    private final Entropy entropy;

    Sealer(byte[] key, Entropy entropy) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("an AES-256 key is 32 bytes");
        }
        this.key = key.clone();
        this.entropy = entropy;
    }

    /** Reads a key file: 32 raw bytes, or 64 hex characters (surrounding whitespace ignored). */
    static byte[] readKey(Path file) throws JournalException, IOException {
        byte[] raw = Files.readAllBytes(file);
        if (raw.length == KEY_BYTES) {
            return raw;
        }
        String text = new String(raw, StandardCharsets.US_ASCII).trim();
        if (text.length() == 2 * KEY_BYTES) {
            try {
                return HexFormat.of().parseHex(text);
            } catch (IllegalArgumentException e) {
                // Falls through to the error below.
            }
        }
        throw new JournalException(JournalException.Kind.BAD_KEY,
                file + " is not a 32-byte key (raw bytes or 64 hex characters)");
    }

    byte[] seal(byte[] position, byte[] plain) {
        byte[] nonce = new byte[NONCE_BYTES];
        entropy.nextBytes(nonce);
        GCMBlockCipher c = cipher(true, nonce, position);
        byte[] out = new byte[NONCE_BYTES + c.getOutputSize(plain.length)];
        System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
        int n = c.processBytes(plain, 0, plain.length, out, NONCE_BYTES);
        try {
            c.doFinal(out, NONCE_BYTES + n);
        } catch (InvalidCipherTextException e) {
            throw new IllegalStateException("encryption cannot fail an authentication check", e);
        }
        return out;
    }

    byte[] open(byte[] position, byte[] sealed) throws JournalException {
        if (sealed.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new JournalException(JournalException.Kind.CORRUPT, "a record is too short to be sealed");
        }
        byte[] nonce = Arrays.copyOf(sealed, NONCE_BYTES);
        GCMBlockCipher c = cipher(false, nonce, position);
        byte[] out = new byte[c.getOutputSize(sealed.length - NONCE_BYTES)];
        int n = c.processBytes(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES, out, 0);
        try {
            c.doFinal(out, n);
        } catch (InvalidCipherTextException e) {
            throw new JournalException(JournalException.Kind.WRONG_KEY,
                    "a record does not authenticate: wrong journal key, or the journal was altered");
        }
        return out;
    }

    /** One cipher per direction, keyed once: re-initialising with a null key keeps the AES key schedule. */
    private GCMBlockCipher encrypter;
    private GCMBlockCipher decrypter;

    private GCMBlockCipher cipher(boolean encrypt, byte[] nonce, byte[] position) {
        GCMBlockCipher c = encrypt ? encrypter : decrypter;
        KeyParameter k = null;
        if (c == null) {
            c = (GCMBlockCipher) GCMBlockCipher.newInstance(AESEngine.newInstance());
            k = new KeyParameter(key);
            if (encrypt) {
                encrypter = c;
            } else {
                decrypter = c;
            }
        }
        c.init(encrypt, new AEADParameters(k, TAG_BITS, nonce, position));
        return c;
    }
}
