package sush.ops.auth;

import java.io.IOException;
import java.math.BigInteger;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;

/**
 * What signs an operator's login (security.md section 2): an OpenSSH private key file
 * ({@code --operator-key}, unencrypted {@code openssh-key-v1}, Ed25519 or P-256) or the SSH agent
 * ({@code SSH_AUTH_SOCK}, the agent protocol over a Unix socket). Both give SSH signature blobs
 * that {@link SshKey#verifies} checks.
 */
public interface OperatorSigner {
    SshKey publicKey();

    /** An SSH signature blob over {@code data}. */
    byte[] sign(byte[] data) throws SshKey.KeyException;

    /** Loads an unencrypted OpenSSH private key ({@code -----BEGIN OPENSSH PRIVATE KEY-----}). */
    static OperatorSigner fromFile(Path file) throws SshKey.KeyException {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new SshKey.KeyException("cannot read " + file + ": " + e.getMessage());
        }
        String begin = "-----BEGIN OPENSSH PRIVATE KEY-----";
        String end = "-----END OPENSSH PRIVATE KEY-----";
        int b = pem.indexOf(begin);
        int e = pem.indexOf(end);
        if (b < 0 || e < b) {
            throw new SshKey.KeyException(file + " is not an OpenSSH private key");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(b + begin.length(), e));
        } catch (IllegalArgumentException x) {
            throw new SshKey.KeyException(file + ": bad base64");
        }
        byte[] magic = "openssh-key-v1\0".getBytes(StandardCharsets.US_ASCII);
        if (der.length < magic.length || !Arrays.equals(Arrays.copyOf(der, magic.length), magic)) {
            throw new SshKey.KeyException(file + " is not openssh-key-v1");
        }
        SshKey.Reader r = new SshKey.Reader(Arrays.copyOfRange(der, magic.length, der.length));
        String cipher = r.string();
        r.string(); // kdf name
        r.bytes(); // kdf options
        if (!cipher.equals("none")) {
            throw new SshKey.KeyException(file + " is encrypted: load it into the SSH agent (ssh-add) instead");
        }
        if (r.u32() != 1) {
            throw new SshKey.KeyException(file + " holds more than one key");
        }
        SshKey pub = SshKey.fromBlob(r.bytes());
        SshKey.Reader p = new SshKey.Reader(r.bytes());
        if (p.u32() != p.u32()) {
            throw new SshKey.KeyException(file + ": check bytes differ (a wrong passphrase, or damage)");
        }
        String type = p.string();
        if (type.equals(SshKey.ED25519)) {
            p.bytes(); // public
            byte[] secret = p.bytes();
            if (secret.length != 64) {
                throw new SshKey.KeyException(file + ": an Ed25519 secret is 64 bytes");
            }
            Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(secret, 0);
            return new Ed25519(pub, key);
        } else if (type.equals(SshKey.ECDSA_P256)) {
            p.string(); // curve
            p.bytes(); // public point
            BigInteger d = p.mpint();
            return new P256(pub, d);
        }
        throw new SshKey.KeyException(file + ": unsupported key type " + type);
    }

    /** Makes an Ed25519 operator key and writes it as an unencrypted OpenSSH key (0600) and a {@code .pub} beside it. */
    static OperatorSigner generate(Path file, String comment, SecureRandom random) throws IOException {
        Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(random);
        byte[] pub = key.generatePublicKey().getEncoded();
        byte[] blob = new SshKey.Writer().string(SshKey.ED25519).bytes(pub).toBytes();
        int check = random.nextInt();
        byte[] secret = new byte[64];
        System.arraycopy(key.getEncoded(), 0, secret, 0, 32);
        System.arraycopy(pub, 0, secret, 32, 32);
        SshKey.Writer priv = new SshKey.Writer().u32(check & 0xFFFFFFFFL).u32(check & 0xFFFFFFFFL)
                .string(SshKey.ED25519).bytes(pub).bytes(secret).string(comment);
        // Padded to the cipher block size (8 for "none") with 1, 2, 3, ...
        int padding = (8 - priv.toBytes().length % 8) % 8;
        for (int pad = 1; pad <= padding; pad++) {
            priv.u8(pad);
        }
        byte[] unpadded = priv.toBytes();
        byte[] body = new SshKey.Writer().raw("openssh-key-v1\0".getBytes(StandardCharsets.US_ASCII)).string("none")
                .string("none").bytes(new byte[0]).u32(1).bytes(blob).bytes(unpadded).toBytes();
        String pem = "-----BEGIN OPENSSH PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(70, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(body)
                + "\n-----END OPENSSH PRIVATE KEY-----\n";
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
        Files.writeString(file.resolveSibling(file.getFileName() + ".pub"), SshKey.ED25519 + " "
                + Base64.getEncoder().encodeToString(blob) + " " + comment + "\n", StandardCharsets.US_ASCII);
        try {
            return new Ed25519(SshKey.fromBlob(blob), key);
        } catch (SshKey.KeyException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One key an SSH agent holds: its type and comment, and the key when sush takes its type. */
    record AgentKey(String type, String comment, Optional<SshKey> key) {
    }

    /** Every key the SSH agent at {@code socket} holds, in its order, of any type ({@code sush iam available}). */
    static List<AgentKey> agentKeys(Path socket) throws SshKey.KeyException {
        return Agent.listing(socket);
    }

    /** Every key of a type sush takes that the SSH agent at {@code socket} holds, in its order, as signers. */
    static List<OperatorSigner> agentAll(Path socket) throws SshKey.KeyException {
        List<OperatorSigner> out = new ArrayList<>();
        for (SshKey k : Agent.identities(socket)) {
            out.add(new Agent(socket, k));
        }
        if (out.isEmpty()) {
            throw new SshKey.KeyException("the SSH agent holds no usable key (ssh-add one of type " + SshKey.ED25519
                    + " or " + SshKey.ECDSA_P256 + ")");
        }
        return out;
    }

    /** The SSH agent at {@code SSH_AUTH_SOCK}: the first key it holds that {@code wanted} accepts. */
    static OperatorSigner agent(Path socket, Predicate<SshKey> wanted) throws SshKey.KeyException {
        List<SshKey> keys = Agent.identities(socket);
        for (SshKey k : keys) {
            if (wanted.test(k)) {
                return new Agent(socket, k);
            }
        }
        throw new SshKey.KeyException("the SSH agent holds no usable key (" + keys.size() + " keys; ssh-add one of type "
                + SshKey.ED25519 + " or " + SshKey.ECDSA_P256 + ")");
    }

    /** An Ed25519 key in this process. */
    final class Ed25519 implements OperatorSigner {
        private final SshKey pub;
        private final Ed25519PrivateKeyParameters key;

        Ed25519(SshKey pub, Ed25519PrivateKeyParameters key) {
            this.pub = pub;
            this.key = key;
        }

        @Override
        public SshKey publicKey() {
            return pub;
        }

        @Override
        public byte[] sign(byte[] data) {
            Ed25519Signer s = new Ed25519Signer();
            s.init(true, key);
            s.update(data, 0, data.length);
            return new SshKey.Writer().string(SshKey.ED25519).bytes(s.generateSignature()).toBytes();
        }
    }

    /** A P-256 key in this process (deterministic k, RFC 6979). */
    final class P256 implements OperatorSigner {
        private static final X9ECParameters CURVE = ECNamedCurveTable.getByName("secp256r1");
        private final SshKey pub;
        private final BigInteger d;

        P256(SshKey pub, BigInteger d) {
            this.pub = pub;
            this.d = d;
        }

        @Override
        public SshKey publicKey() {
            return pub;
        }

        @Override
        public byte[] sign(byte[] data) {
            ECDSASigner s = new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest()));
            s.init(true, new ECPrivateKeyParameters(d, new ECDomainParameters(CURVE.getCurve(), CURVE.getG(),
                    CURVE.getN(), CURVE.getH())));
            BigInteger[] rs = s.generateSignature(SshKey.sha256(data));
            byte[] sig = new SshKey.Writer().bytes(rs[0].toByteArray()).bytes(rs[1].toByteArray()).toBytes();
            return new SshKey.Writer().string(SshKey.ECDSA_P256).bytes(sig).toBytes();
        }
    }

    /** The SSH agent protocol (draft-miller-ssh-agent): list identities, sign. */
    final class Agent implements OperatorSigner {
        private static final int REQUEST_IDENTITIES = 11;
        private static final int IDENTITIES_ANSWER = 12;
        private static final int SIGN_REQUEST = 13;
        private static final int SIGN_RESPONSE = 14;
        private static final int MAX_MESSAGE = 256 * 1024;
        private final Path socket;
        private final SshKey key;

        Agent(Path socket, SshKey key) {
            this.socket = socket;
            this.key = key;
        }

        @Override
        public SshKey publicKey() {
            return key;
        }

        @Override
        public byte[] sign(byte[] data) throws SshKey.KeyException {
            byte[] answer = call(socket, new SshKey.Writer().u8(SIGN_REQUEST).bytes(key.blob()).bytes(data).u32(0)
                    .toBytes());
            SshKey.Reader r = new SshKey.Reader(answer);
            if (r.u8() != SIGN_RESPONSE) {
                throw new SshKey.KeyException("the SSH agent refused to sign (is the key still loaded? confirm "
                        + "on the security key?)");
            }
            return r.bytes();
        }

        static List<SshKey> identities(Path socket) throws SshKey.KeyException {
            List<SshKey> out = new ArrayList<>();
            listing(socket).forEach(k -> k.key().ifPresent(out::add));
            return out;
        }

        /** The agent's keys with their comments; a key of a type sush does not take (RSA, ...) has none. */
        static List<AgentKey> listing(Path socket) throws SshKey.KeyException {
            SshKey.Reader r = new SshKey.Reader(call(socket, new byte[] {REQUEST_IDENTITIES}));
            if (r.u8() != IDENTITIES_ANSWER) {
                throw new SshKey.KeyException("the SSH agent did not list its keys");
            }
            long n = r.u32();
            List<AgentKey> out = new ArrayList<>();
            for (long i = 0; i < n && i < 1000; i++) {
                byte[] blob = r.bytes();
                String comment = r.string();
                String type;
                try {
                    type = new SshKey.Reader(blob).string();
                } catch (SshKey.KeyException e) {
                    type = "unreadable";
                }
                Optional<SshKey> key;
                try {
                    key = Optional.of(SshKey.fromBlob(blob));
                } catch (SshKey.KeyException e) {
                    key = Optional.empty();
                }
                out.add(new AgentKey(type, comment, key));
            }
            return out;
        }

        private static byte[] call(Path socket, byte[] request) throws SshKey.KeyException {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(socket));
                ByteBuffer out = ByteBuffer.allocate(4 + request.length).putInt(request.length).put(request).flip();
                while (out.hasRemaining()) {
                    ch.write(out);
                }
                ByteBuffer len = ByteBuffer.allocate(4);
                readFully(ch, len);
                int n = len.flip().getInt();
                if (n <= 0 || n > MAX_MESSAGE) {
                    throw new SshKey.KeyException("the SSH agent answered " + n + " bytes");
                }
                ByteBuffer body = ByteBuffer.allocate(n);
                readFully(ch, body);
                return body.array();
            } catch (IOException e) {
                throw new SshKey.KeyException("cannot talk to the SSH agent at " + socket + ": " + e.getMessage());
            }
        }

        private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                if (ch.read(b) < 0) {
                    throw new IOException("the agent closed the connection");
                }
            }
        }
    }
}
