package sush.ops.auth;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import sush.projections.id.KeyId;

/**
 * An operator's OpenSSH public key (security.md section 2): {@code ssh-ed25519}, {@code
 * ecdsa-sha2-nistp256}, and their security-key forms {@code sk-ssh-ed25519@openssh.com} and
 * {@code sk-ecdsa-sha2-nistp256@openssh.com}. Parsed from its wire blob (RFC 4253 strings), it
 * verifies the signature blobs an SSH agent or a key file makes. Its id is SHA3-256 of the blob
 * cut to 88 bits, printed as a codephrase.
 */
public final class SshKey {
    public static final String ED25519 = "ssh-ed25519";
    public static final String ECDSA_P256 = "ecdsa-sha2-nistp256";
    public static final String SK_ED25519 = "sk-ssh-ed25519@openssh.com";
    public static final String SK_ECDSA_P256 = "sk-ecdsa-sha2-nistp256@openssh.com";
    private static final X9ECParameters P256 = ECNamedCurveTable.getByName("secp256r1");
    private static final ECDomainParameters P256_DOMAIN = new ECDomainParameters(P256.getCurve(), P256.getG(),
            P256.getN(), P256.getH());
    /** Bound on a key or signature blob read from a file, a header or the network. */
    public static final int MAX_BLOB = 4096;

    private final String type;
    private final byte[] blob;
    /** The raw key: 32 bytes (Ed25519) or the uncompressed point (P-256). */
    private final byte[] key;
    /** The security key's application (sk- types), else null. */
    private final String application;

    /** A key or signature that cannot be used, with a one-line reason. */
    public static final class KeyException extends Exception {
        private static final long serialVersionUID = 1L;

        public KeyException(String message) {
            super(message);
        }
    }

    private SshKey(String type, byte[] blob, byte[] key, String application) {
        this.type = type;
        this.blob = blob;
        this.key = key;
        this.application = application;
    }

    /** Parses a public key blob. */
    public static SshKey fromBlob(byte[] blob) throws KeyException {
        if (blob.length > MAX_BLOB) {
            throw new KeyException("a key blob is at most " + MAX_BLOB + " bytes");
        }
        Reader r = new Reader(blob);
        String type = r.string();
        byte[] key;
        String application = null;
        switch (type) {
            case ED25519, SK_ED25519 -> {
                key = r.bytes();
                if (key.length != 32) {
                    throw new KeyException("an Ed25519 key is 32 bytes, not " + key.length);
                }
            }
            case ECDSA_P256, SK_ECDSA_P256 -> {
                String curve = r.string();
                if (!curve.equals("nistp256")) {
                    throw new KeyException("only the nistp256 curve, not " + curve);
                }
                key = r.bytes();
                try {
                    P256.getCurve().decodePoint(key);
                } catch (IllegalArgumentException e) {
                    throw new KeyException("not a point of P-256");
                }
            }
            default -> throw new KeyException("unsupported key type " + type + " (use ssh-ed25519 or ecdsa-sha2-nistp256)");
        }
        if (type.startsWith("sk-")) {
            application = r.string();
        }
        r.end();
        return new SshKey(type, blob.clone(), key, application);
    }

    /** Parses {@code type base64 [comment]} (one authorized_keys entry without options). */
    public static SshKey fromOpenSsh(String line) throws KeyException {
        String[] f = line.strip().split("\\s+");
        if (f.length < 2) {
            throw new KeyException("expected 'type base64-key [comment]'");
        }
        byte[] blob;
        try {
            blob = Base64.getDecoder().decode(f[1]);
        } catch (IllegalArgumentException e) {
            throw new KeyException("the key is not base64");
        }
        SshKey k = fromBlob(blob);
        if (!k.type.equals(f[0])) {
            throw new KeyException("the line says " + f[0] + " but the key is " + k.type);
        }
        return k;
    }

    public String type() {
        return type;
    }

    public byte[] blob() {
        return blob.clone();
    }

    /** The {@code type base64} form. */
    public String openSsh() {
        return type + " " + Base64.getEncoder().encodeToString(blob);
    }

    /** SHA3-256 of the blob, cut to 88 bits. */
    public KeyId id() {
        try {
            byte[] d = MessageDigest.getInstance("SHA3-256").digest(blob);
            return new KeyId(Arrays.copyOf(d, KeyId.BYTES));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA3-256 is part of every Java 17", e);
        }
    }

    /**
     * Whether {@code signature} (an SSH signature blob: string type, string bytes, and for
     * security keys byte flags and uint32 counter) is this key's over {@code data}. Security-key
     * signatures must assert user presence.
     */
    public boolean verifies(byte[] data, byte[] signature) {
        try {
            if (signature.length > MAX_BLOB) {
                return false;
            }
            Reader r = new Reader(signature);
            String alg = r.string();
            if (!alg.equals(type)) {
                return false;
            }
            byte[] sig = r.bytes();
            byte[] signed = data;
            if (application != null) {
                int flags = r.u8();
                long counter = r.u32();
                if ((flags & 0x01) == 0) {
                    return false; // no user presence
                }
                ByteBuffer b = ByteBuffer.allocate(32 + 1 + 4 + 32);
                b.put(sha256(application.getBytes(StandardCharsets.UTF_8))).put((byte) flags).putInt((int) counter)
                        .put(sha256(data));
                signed = b.array();
            }
            r.end();
            if (type.equals(ED25519) || type.equals(SK_ED25519)) {
                if (sig.length != 64) {
                    return false;
                }
                Ed25519Signer v = new Ed25519Signer();
                v.init(false, new Ed25519PublicKeyParameters(key, 0));
                v.update(signed, 0, signed.length);
                return v.verifySignature(sig);
            }
            Reader rs = new Reader(sig);
            BigInteger rr = rs.mpint();
            BigInteger ss = rs.mpint();
            rs.end();
            ECDSASigner v = new ECDSASigner();
            v.init(false, new ECPublicKeyParameters(P256.getCurve().decodePoint(key), P256_DOMAIN));
            return v.verifySignature(sha256(signed), rr, ss);
        } catch (KeyException | RuntimeException e) {
            return false;
        }
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SshKey && Arrays.equals(blob, ((SshKey) o).blob);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(blob);
    }

    @Override
    public String toString() {
        return type + " " + id();
    }

    /** RFC 4251 wire types, bounds-checked. */
    static final class Reader {
        private final byte[] b;
        private int at;

        Reader(byte[] b) {
            this.b = b;
        }

        int u8() throws KeyException {
            need(1);
            return b[at++] & 0xFF;
        }

        long u32() throws KeyException {
            need(4);
            long v = ((b[at] & 0xFFL) << 24) | ((b[at + 1] & 0xFFL) << 16) | ((b[at + 2] & 0xFFL) << 8) | (b[at + 3] & 0xFFL);
            at += 4;
            return v;
        }

        byte[] bytes() throws KeyException {
            long n = u32();
            if (n > b.length - at) {
                throw new KeyException("a field runs past the end");
            }
            byte[] out = Arrays.copyOfRange(b, at, at + (int) n);
            at += (int) n;
            return out;
        }

        String string() throws KeyException {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        BigInteger mpint() throws KeyException {
            byte[] m = bytes();
            return m.length == 0 ? BigInteger.ZERO : new BigInteger(m);
        }

        void end() throws KeyException {
            if (at != b.length) {
                throw new KeyException((b.length - at) + " bytes after the last field");
            }
        }

        private void need(int n) throws KeyException {
            if (b.length - at < n) {
                throw new KeyException("truncated");
            }
        }
    }

    /** RFC 4251 wire types, written. */
    static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Writer u32(long v) {
            out.write((int) (v >>> 24));
            out.write((int) (v >>> 16));
            out.write((int) (v >>> 8));
            out.write((int) v);
            return this;
        }

        Writer u8(int v) {
            out.write(v);
            return this;
        }

        Writer bytes(byte[] v) {
            u32(v.length);
            out.write(v, 0, v.length);
            return this;
        }

        Writer string(String v) {
            return bytes(v.getBytes(StandardCharsets.UTF_8));
        }

        Writer raw(byte[] v) {
            out.write(v, 0, v.length);
            return this;
        }

        byte[] toBytes() {
            return out.toByteArray();
        }
    }
}
