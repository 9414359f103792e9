package sush.locker.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;

import sush.projections.id.Hashes;

/**
 * One slot's file (at-most-once.md section 8): magic {@code SUSHBOUNDARY} (12 bytes), the writing
 * process's nonce (32), a sequence number (u64 big-endian), SHA3-256 of nonce, sequence and body
 * (32), then the body (the record's CBOR envelope).
 */
public record SlotFile(byte[] nonce, long seq, byte[] body) {
    static final byte[] MAGIC = "SUSHBOUNDARY".getBytes(StandardCharsets.US_ASCII);
    public static final int NONCE_BYTES = 32;
    static final int DIGEST_BYTES = 32;
    static final int HEADER_BYTES = MAGIC.length + NONCE_BYTES + Long.BYTES + DIGEST_BYTES;

    public SlotFile {
        if (nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("a process nonce is " + NONCE_BYTES + " bytes");
        }
        nonce = nonce.clone();
        body = body.clone();
    }

    public byte[] encode() {
        return ByteBuffer.allocate(HEADER_BYTES + body.length).put(MAGIC).put(nonce).putLong(seq)
                .put(digest(nonce, seq, body)).put(body).array();
    }

    /** Parses and checks a file; the reason of a refusal is the exception's message. */
    public static SlotFile decode(byte[] file) throws SlotFileException {
        if (file.length < HEADER_BYTES) {
            throw new SlotFileException("file of " + file.length + " bytes is shorter than its header");
        }
        ByteBuffer in = ByteBuffer.wrap(file);
        byte[] magic = new byte[MAGIC.length];
        in.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new SlotFileException("no SUSHBOUNDARY magic");
        }
        byte[] nonce = new byte[NONCE_BYTES];
        in.get(nonce);
        long seq = in.getLong();
        byte[] digest = new byte[DIGEST_BYTES];
        in.get(digest);
        byte[] body = new byte[in.remaining()];
        in.get(body);
        if (!MessageDigest.isEqual(digest, digest(nonce, seq, body))) {
            throw new SlotFileException("digest mismatch (torn or corrupted file)");
        }
        return new SlotFile(nonce, seq, body);
    }

    boolean sameNonce(SlotFile other) {
        return Arrays.equals(nonce, other.nonce);
    }

    boolean sameBody(SlotFile other) {
        return Arrays.equals(body, other.body);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlotFile && seq == ((SlotFile) o).seq && sameNonce((SlotFile) o) && sameBody((SlotFile) o);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(nonce) * 31 + Long.hashCode(seq) * 17 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "SlotFile(nonce " + HexFormat.of().formatHex(nonce, 0, 4) + "..., seq " + seq + ", "
                + body.length + " body bytes)";
    }

    private static byte[] digest(byte[] nonce, long seq, byte[] body) {
        MessageDigest d = Hashes.sha3();
        d.update(nonce);
        d.update(ByteBuffer.allocate(Long.BYTES).putLong(seq).array());
        d.update(body);
        return d.digest();
    }

    /** Bytes that are not a sound slot file. */
    public static final class SlotFileException extends Exception {
        private static final long serialVersionUID = 1L;

        SlotFileException(String message) {
            super(message);
        }
    }
}
