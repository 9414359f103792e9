package sush.ops.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import sush.ops.wire.Json;
import sush.projections.id.IdException;
import sush.projections.id.KeyId;
import tools.jackson.databind.JsonNode;

/**
 * A client's operator identity (security.md section 2): the operator signer that logs in, and
 * the identity a login made (key id, login nonce, ephemeral Ed25519 key) with which it signs
 * each request under an increasing sequence number. The identity may be cached in a file (mode
 * 0600) so that consecutive commands share one login.
 */
public final class Credentials {
    /** Makes the operator signer when a login is needed (a key file, or the SSH agent). */
    @FunctionalInterface
    public interface SignerSource {
        OperatorSigner get() throws SshKey.KeyException;

        /**
         * Every signer a login may try, in order (an SSH agent's keys, issue 41: a key the sled
         * does not list is passed for the next, as ssh does); one by default.
         */
        default List<OperatorSigner> all() throws SshKey.KeyException {
            return List.of(get());
        }
    }

    /** One login's identity. */
    public record Identity(KeyId key, byte[] nonce, byte[] ephemeralSecret, long expires, String acceptor) {
    }

    private final SignerSource source;
    private final Optional<Path> cache;
    private volatile Identity identity;
    /** Sequence numbers: microseconds, so that processes sharing a cached identity keep increasing. */
    private final AtomicLong seq = new AtomicLong();

    public Credentials(SignerSource source, Optional<Path> cache) {
        this.source = source;
        this.cache = cache;
        cache.flatMap(Credentials::read).ifPresent(i -> identity = i);
    }

    /**
     * The operator signer the environment {@code env} names: {@code explicit} or {@code
     * SUSH_OPERATOR_KEY} (an OpenSSH private key file), else the SSH agent at {@code
     * SSH_AUTH_SOCK}; a relative path is taken in the directory {@code cwd}.
     */
    public static SignerSource fromEnvironment(Path explicit, Map<String, String> env, Path cwd) {
        return new SignerSource() {
            @Override
            public OperatorSigner get() throws SshKey.KeyException {
                return all().get(0);
            }

            @Override
            public List<OperatorSigner> all() throws SshKey.KeyException {
                Path file = explicit != null ? explicit
                        : Optional.ofNullable(env.get("SUSH_OPERATOR_KEY")).map(Path::of).orElse(null);
                if (file != null) {
                    return List.of(OperatorSigner.fromFile(cwd.resolve(file)));
                }
                String sock = env.get("SSH_AUTH_SOCK");
                if (sock == null) {
                    throw new SshKey.KeyException("no operator key: pass --operator-key FILE, set SUSH_OPERATOR_KEY, "
                            + "or run an SSH agent holding your key (SSH_AUTH_SOCK)");
                }
                return OperatorSigner.agentAll(cwd.resolve(sock));
            }
        };
    }

    public Optional<Identity> identity() {
        return Optional.ofNullable(identity);
    }

    public OperatorSigner signer() throws SshKey.KeyException {
        return source.get();
    }

    /** Every signer a login may try, in order ({@link SignerSource#all}). */
    public List<OperatorSigner> signers() throws SshKey.KeyException {
        return source.all();
    }

    /** Forgets the identity (a sled refused it); the next request logs in again. */
    public void forget() {
        identity = null;
        cache.ifPresent(p -> {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // a stale cache only costs a login
            }
        });
    }

    /** A fresh ephemeral key: its secret, and the public half a login vouches for. */
    public static byte[][] ephemeral(SecureRandom random) {
        Ed25519PrivateKeyParameters k = new Ed25519PrivateKeyParameters(random);
        return new byte[][] {k.getEncoded(), k.generatePublicKey().getEncoded()};
    }

    /** Keeps a login's identity (and caches it). */
    public void loggedIn(Identity i) {
        identity = i;
        cache.ifPresent(p -> write(p, i));
    }

    /**
     * A read token of this identity (D-035), valid until {@code expires} (ms; capped at the
     * identity's own expiry): {@code KEY.NONCE.EXPIRES.SIG}, for {@code Authorization: SushRead}.
     */
    public Optional<String> readToken(long expires) {
        Identity i = identity;
        if (i == null) {
            return Optional.empty();
        }
        long until = Math.min(expires, i.expires());
        Ed25519Signer s = new Ed25519Signer();
        s.init(true, new Ed25519PrivateKeyParameters(i.ephemeralSecret(), 0));
        byte[] signed = Authority.readBytes(i.key(), i.nonce(), until);
        s.update(signed, 0, signed.length);
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return Optional.of(i.key().codephrase().replace(' ', '-') + "." + b64.encodeToString(i.nonce()) + "." + until
                + "." + b64.encodeToString(s.generateSignature()));
    }

    /**
     * The {@code Authorization} header for one request to sled {@code sled} of rack {@code rack},
     * or empty without an identity. It is good at that sled only (issue 36).
     */
    public Optional<String> authorize(String rack, String sled, String method, String pathAndQuery, byte[] body) {
        Identity i = identity;
        if (i == null) {
            return Optional.empty();
        }
        long n = nextSeq(System.currentTimeMillis());
        Ed25519Signer s = new Ed25519Signer();
        s.init(true, new Ed25519PrivateKeyParameters(i.ephemeralSecret(), 0));
        byte[] signed = Authority.requestBytes(i.key(), i.nonce(), rack, sled, method, pathAndQuery, n,
                Authority.sha3(body));
        s.update(signed, 0, signed.length);
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return Optional.of("Sush key-id=" + i.key().codephrase().replace(' ', '-') + ", nonce="
                + b64.encodeToString(i.nonce()) + ", seq=" + n + ", aud=" + b64.encodeToString(sled.getBytes(
                        StandardCharsets.UTF_8)) + ", sig=" + b64.encodeToString(s.generateSignature()));
    }

    /**
     * The next sequence number. A request after a pause takes the wall clock in microseconds, so
     * that a later process sharing the cached identity never reuses one; requests in a burst
     * (each within {@value #BURST_MILLIS} ms of the one before) take consecutive numbers, so that
     * parallel requests arriving out of order stay inside the sled's 256-wide window (the
     * parallel download's ranges; found by its end-to-end test).
     */
    synchronized long nextSeq(long nowMillis) {
        long prev = seq.get();
        long n = prev != 0 && nowMillis - lastIssuedMillis < BURST_MILLIS && nowMillis >= lastIssuedMillis ? prev + 1
                : Math.max(prev + 1, nowMillis * 1000);
        seq.set(n);
        lastIssuedMillis = nowMillis;
        return n;
    }

    static final long BURST_MILLIS = 1_000;
    private long lastIssuedMillis;

    private static Optional<Identity> read(Path p) {
        try {
            JsonNode n = Json.MAPPER.readTree(Files.readString(p, StandardCharsets.UTF_8));
            Base64.Decoder d = Base64.getDecoder();
            Identity i = new Identity(KeyId.parse(n.get("key_id").asString()), d.decode(n.get("nonce").asString()),
                    d.decode(n.get("ephemeral_secret").asString()), n.get("expires").asLong(),
                    n.get("acceptor").asString());
            return i.expires() > System.currentTimeMillis() ? Optional.of(i) : Optional.empty();
        } catch (IOException | RuntimeException | IdException e) {
            return Optional.empty();
        }
    }

    private static void write(Path p, Identity i) {
        Map<String, Object> m = new LinkedHashMap<>();
        Base64.Encoder e = Base64.getEncoder();
        m.put("key_id", i.key().codephrase());
        m.put("nonce", e.encodeToString(i.nonce()));
        m.put("ephemeral_secret", e.encodeToString(i.ephemeralSecret()));
        m.put("expires", i.expires());
        m.put("acceptor", i.acceptor());
        try {
            Files.createDirectories(p.getParent(), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Path temp = p.resolveSibling(p.getFileName() + ".tmp");
            Files.deleteIfExists(temp);
            Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(temp, Json.MAPPER.writeValueAsString(m), StandardCharsets.UTF_8);
            Files.move(temp, p, StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException ex) {
            // Not cached: the next command logs in again.
        }
    }
}
