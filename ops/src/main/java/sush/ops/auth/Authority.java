package sush.ops.auth;

import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

import sush.gossip.Entropy;
import sush.projections.id.KeyId;
import sush.projections.job.SignerTrust;
import sush.projections.message.Message;

/**
 * One sled's view of who may ask (security.md section 2): the operators file, login challenges,
 * the identities logins made (here or on other sleds, by gossip), revoked keys, and the check of
 * every signed request with its 256-wide sequence window. Thread-safe; the clock and the nonces
 * are injected.
 */
public final class Authority {
    /** Domain separation: what an operator key signs for a login, and an identity for a request. */
    public static final String LOGIN_DOMAIN = "sush-operator-login-v1";
    /**
     * v2 (issue 36): the signed bytes name the rack and the sled the request is for, so a request
     * captured at one sled is refused {@code wrong-audience} at every other.
     */
    public static final String REQUEST_DOMAIN = "sush-operator-request-v2";
    public static final long CHALLENGE_MILLIS = 60_000;
    public static final long IDLE_MILLIS = 10 * 60_000;
    public static final long MAX_MILLIS = 8 * 3_600_000;
    public static final int WINDOW = 256;
    /** Bound on identities held (every login makes one; the oldest expire first). */
    public static final int MAX_IDENTITIES = 65_536;
    public static final int NONCE_BYTES = 16;

    private final Path operatorsFile;
    private final LongSupplier clock;
    private volatile Map<KeyId, Operator> operators;
    /** This sled's login challenges, and the logins completed with them. */
    private final Challenges challenges;
    private final LinkedHashMap<String, Identity> identities = new LinkedHashMap<>();
    /** The revocations in force and lifted (issue 36: kept on disk, read before the API serves). */
    private final Revocations revocations;

    /** One revocation: whose key, by whom, and its id (an unrevoke names it). */
    public record Revocation(KeyId key, String by, String id) {
    }

    /** Bound on lifted revocations remembered (the oldest are forgotten first). */
    public static final int MAX_LIFTED = 4096;

    /** A key of the operators file and its comment. */
    public record Operator(SshKey key, String comment) {
    }

    /** Why a request or login is refused: the HTTP status and the JSON error code. */
    public static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        private final int status;
        private final String code;

        public Refusal(int status, String code, String message) {
            super(message);
            this.status = status;
            this.code = code;
        }

        public int status() {
            return status;
        }

        public String code() {
            return code;
        }
    }

    /** An identity a login made: an operator key's ephemeral key, until it expires. */
    public static final class Identity {
        private final KeyId key;
        private final String comment;
        private final byte[] nonce;
        private final byte[] ephemeral;
        private final String acceptor;
        private final long created;
        private final long expires;
        private long lastUsed;
        /** The sequence numbers it signed, in the window below the highest. */
        private final SequenceWindow seen = new SequenceWindow();
        /** The login that made it, with its evidence. */
        private Message.OperatorLogin login;

        Identity(KeyId key, String comment, byte[] nonce, byte[] ephemeral, String acceptor, long created, long expires) {
            this.key = key;
            this.comment = comment;
            this.nonce = nonce;
            this.ephemeral = ephemeral;
            this.acceptor = acceptor;
            this.created = created;
            this.expires = expires;
            this.lastUsed = created;
        }

        public KeyId key() {
            return key;
        }

        public String comment() {
            return comment;
        }

        public String acceptor() {
            return acceptor;
        }

        public long expires() {
            return expires;
        }

        public long lastUsed() {
            return lastUsed;
        }

        /** Whether {@code seq} is new (and records it): above the highest, or inside the window and unseen. */
        boolean accept(long seq) {
            return seen.accept(seq);
        }
    }

    public Authority(Path operatorsFile, LongSupplier clock, Entropy entropy) throws IOException {
        this(operatorsFile, clock, entropy, Optional.empty());
    }

    /**
     * With the revocations kept in {@code revocations} (issue 36): read now, before anything is
     * served, and written (temporary file, fsync, rename; mode 0600) at every change. A file
     * that does not read is an {@link IOException}: a sled never serves having forgotten them.
     */
    public Authority(Path operatorsFile, LongSupplier clock, Entropy entropy, Optional<Path> revocations)
            throws IOException {
        this.operatorsFile = operatorsFile;
        this.clock = clock;
        this.operators = OperatorsFile.read(operatorsFile);
        this.challenges = new Challenges(clock, entropy);
        this.revocations = new Revocations(revocations);
        this.signerTrust = new SignerTrustFile(revocations.map(r -> r.resolveSibling(SignerTrustFile.NAME)));
    }

    /** The signer-trust changes this sled keeps (issue 41), beside its revoked operators. */
    private final SignerTrustFile signerTrust;

    public SignerTrustFile signerTrust() {
        return signerTrust;
    }

    /**
     * Whether an operator of this sled's file, not revoked, signed {@code m} (issue 41): a change
     * of the signer keys trusted this sled applies.
     */
    public synchronized boolean authorizes(SignerTrust m) {
        return signedByAnOperator(m) && !revocations.isRevoked(keyOf(m));
    }

    /**
     * Whether an operator of this sled's file signed {@code m}, revoked since or not: what a
     * change kept on disk needs to be applied again at start (it was authorized when it was
     * made; a revocation of a signer never goes because its operator went later).
     */
    public synchronized boolean signedByAnOperator(SignerTrust m) {
        try {
            SshKey key = SshKey.fromBlob(m.operatorKey());
            Operator op = operators.get(key.id());
            return op != null && op.key().equals(key) && key.verifies(m.body(), m.signature());
        } catch (SshKey.KeyException e) {
            return false;
        }
    }

    private static KeyId keyOf(SignerTrust m) {
        try {
            return SshKey.fromBlob(m.operatorKey()).id();
        } catch (SshKey.KeyException e) {
            throw new IllegalStateException("a change signed by a readable key", e);
        }
    }

    /** Re-reads the operators file (SIGHUP). A key taken out of it logs in no more; its identities end. */
    public synchronized int reload() throws IOException {
        operators = OperatorsFile.read(operatorsFile);
        identities.values().removeIf(i -> !operators.containsKey(i.key));
        return operators.size();
    }

    public Map<KeyId, Operator> operators() {
        return operators;
    }

    /**
     * A fresh challenge nonce for a client at {@code client} (its address), valid 60 s, single
     * use. Stateless (security.md section 5, issue 36): 4 random bytes, the expiry in seconds
     * (4 bytes), and a MAC (8 bytes of HMAC-SHA256 with this sled's secret) over both and the
     * client's address. No number of challenges asked evicts another client's: none is stored.
     */
    public byte[] challenge(String client) {
        return challenges.challenge(client);
    }

    /** What an operator key signs to log in. */
    public static byte[] loginBytes(byte[] nonce, byte[] clientNonce, byte[] ephemeral) {
        return new SshKey.Writer().string(LOGIN_DOMAIN).bytes(nonce).bytes(clientNonce).bytes(ephemeral).toBytes();
    }

    /**
     * A login at this sled: the challenge must be one this sled gave to {@code client} (unused,
     * not expired), the key in the operators file and not revoked, the signature good. Returns
     * the message to gossip.
     */
    public synchronized Message.OperatorLogin login(String acceptor, String client, byte[] keyBlob, byte[] nonce,
            byte[] clientNonce, byte[] ephemeral, byte[] signature) throws Refusal {
        long now = clock.getAsLong();
        challenges.forgetExpired(now);
        long expiry = challenges.challengeExpiry(nonce, client);
        String handle = HexFormat.of().formatHex(nonce);
        if (expiry <= now || challenges.completed(handle)) {
            throw new Refusal(401, "expired", "the challenge is unknown, used or expired: ask for a new one");
        }
        Message.OperatorLogin m = new Message.OperatorLogin(acceptor, keyBlob, nonce, clientNonce, ephemeral, signature,
                now + MAX_MILLIS);
        accept(m);
        challenges.complete(handle, expiry);
        return m;
    }

    /**
     * Honours a login (this sled's, or one gossiped from another sled, which checked its
     * challenge): the key must be in this sled's operators file and not revoked, and the
     * signature good; the identity lasts until the login's expiry and at most 8 h from now.
     */
    public synchronized Identity accept(Message.OperatorLogin m) throws Refusal {
        SshKey key;
        try {
            key = SshKey.fromBlob(m.key());
        } catch (SshKey.KeyException e) {
            throw new Refusal(401, "unknown-key", "not an operator key: " + e.getMessage());
        }
        KeyId id = key.id();
        Operator op = operators.get(id);
        if (op == null || !op.key().equals(key)) {
            throw new Refusal(401, "unknown-key", "key " + id + " is not in this sled's operators file");
        }
        if (revocations.isRevoked(id)) {
            throw new Refusal(401, "revoked", "key " + id + " is revoked");
        }
        if (m.ephemeral().length != 32 || !key.verifies(loginBytes(m.nonce(), m.clientNonce(), m.ephemeral()),
                m.signature())) {
            throw new Refusal(401, "bad-signature", "the login signature does not verify with key " + id);
        }
        long now = clock.getAsLong();
        String handle = HexFormat.of().formatHex(m.nonce());
        Identity existing = identities.get(handle);
        if (existing != null) {
            return existing;
        }
        while (identities.size() >= MAX_IDENTITIES) {
            identities.remove(identities.keySet().iterator().next());
        }
        Identity i = new Identity(id, op.comment(), m.nonce().clone(), m.ephemeral().clone(), m.acceptor(), now,
                Math.min(m.expires(), now + MAX_MILLIS));
        i.login = m;
        identities.put(handle, i);
        return i;
    }

    /**
     * The logins this sled accepted ({@code acceptor}) whose identities live: what it tells a
     * universe it enters, so that an identity made just before a migration is honoured on the
     * sleds of the new one too (every sled checks each again against its own operators file).
     */
    public synchronized List<Message.OperatorLogin> liveLoginsAcceptedBy(String acceptor) {
        long now = clock.getAsLong();
        List<Message.OperatorLogin> out = new ArrayList<>();
        for (Identity i : identities.values()) {
            if (i.login != null && i.acceptor.equals(acceptor) && live(i, now)) {
                out.add(i.login);
            }
        }
        return out;
    }

    /**
     * A revocation (local or gossiped): the key's identities end, its logins are refused from now
     * on, and it is kept on disk before this returns. One already lifted (re-gossiped after an
     * unrevoke) changes nothing. Returns how many identities it ended here.
     */
    public synchronized int revoke(Revocation r) {
        if (!revocations.revoke(r)) {
            return 0;
        }
        int n = identities.size();
        identities.values().removeIf(i -> i.key.equals(r.key()));
        return n - identities.size();
    }

    /** A revocation of {@code key} with no id (tests; journals of older builds). */
    public synchronized int revoke(KeyId key) {
        return revoke(new Revocation(key, "", ""));
    }

    /**
     * Lifts revocation {@code lifts} of {@code key}: the key logs in again, unless a revocation
     * with another id is in force (made meanwhile); the lifted id is remembered either way.
     * Returns whether the key is no longer revoked here.
     */
    public synchronized boolean unrevoke(KeyId key, String by, String lifts) {
        return revocations.unrevoke(key, by, lifts);
    }

    public synchronized boolean isRevoked(KeyId key) {
        return revocations.isRevoked(key);
    }

    /** The revocation of {@code key} in force, if any. */
    public synchronized Optional<Revocation> revocation(KeyId key) {
        return revocations.revocation(key);
    }

    /** Every revocation in force, and every lifted one remembered: what a sled tells a new universe. */
    public synchronized List<Revocation> revocations() {
        return revocations.inForce();
    }

    public synchronized List<Revocation> liftedRevocations() {
        return revocations.lifted();
    }

    /** The live identities, oldest first. */
    public synchronized List<Identity> identities() {
        long now = clock.getAsLong();
        List<Identity> out = new ArrayList<>();
        for (Identity i : identities.values()) {
            if (live(i, now)) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * Who a request is for (security.md section 5): the rack (its CA's key id) and this sled; a
     * request this sled relays names the sled it is relayed to ({@code ?sled=B}), and that sled
     * checks it again for itself.
     */
    public record Audience(String rack, String me, Optional<String> relayTo) {
        public Audience {
            Objects.requireNonNull(rack, "rack");
            Objects.requireNonNull(me, "me");
            Objects.requireNonNull(relayTo, "relayTo");
        }

        /** Whether a request signed for sled {@code sled} may be taken here. */
        boolean admits(String sled) {
            return sled.equals(me) || relayTo.filter(r -> !r.equals(me)).map(sled::equals).orElse(false);
        }
    }

    /**
     * What an identity signs for one request: the rack and the sled it is for, so that it is good
     * at that sled only (issue 36: a request captured at one sled replayed once at every other).
     */
    public static byte[] requestBytes(KeyId key, byte[] nonce, String rack, String sled, String method,
            String pathAndQuery, long seq, byte[] bodySha3) {
        return new SshKey.Writer().string(REQUEST_DOMAIN).string(key.codephrase()).bytes(nonce).string(rack)
                .string(sled).string(method).string(pathAndQuery).u32(seq >>> 32).u32(seq & 0xFFFFFFFFL)
                .bytes(bodySha3).toBytes();
    }

    public static byte[] sha3(byte[] body) {
        try {
            return MessageDigest.getInstance("SHA3-256").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Checks a request's {@code Authorization: Sush key-id=..., nonce=..., seq=..., aud=...,
     * sig=...} ({@code aud}: the sled it is for, base64url); returns its identity or refuses (401:
     * login required, expired, replayed, unknown, revoked, wrong audience).
     */
    public synchronized Identity authenticate(String header, String method, String pathAndQuery, byte[] body,
            Audience audience) throws Refusal {
        AuthorizationHeaders.Signed h = AuthorizationHeaders.signed(header, audience);
        KeyId key = h.key();
        byte[] nonce = h.nonce();
        long seq = h.seq();
        if (revocations.isRevoked(key)) {
            throw new Refusal(401, "revoked", "key " + key + " is revoked");
        }
        Identity i = identities.get(HexFormat.of().formatHex(nonce));
        long now = clock.getAsLong();
        if (i == null || !i.key.equals(key)) {
            throw new Refusal(401, "login-required", "no identity " + key + " here: sush login");
        }
        if (!live(i, now)) {
            identities.remove(HexFormat.of().formatHex(nonce));
            throw new Refusal(401, "expired", "the identity expired: sush login");
        }
        if (!signedBy(i, requestBytes(key, nonce, audience.rack(), h.aud(), method, pathAndQuery, seq, sha3(body)),
                h.sig())) {
            throw new Refusal(401, "bad-signature", "the request signature does not verify");
        }
        if (!i.accept(seq)) {
            throw new Refusal(401, "replayed", "sequence number " + seq + " was used or is too old");
        }
        i.lastUsed = now;
        return i;
    }

    /** Domain separation of a read token (D-035). */
    public static final String READ_DOMAIN = "sush-web-read-v1";
    /** The scheme of a read token in {@code Authorization}. */
    public static final String READ_SCHEME = "SushRead ";

    /** What an identity signs for a read token: its key, its login nonce, the token's expiry. */
    public static byte[] readBytes(KeyId key, byte[] nonce, long expires) {
        return new SshKey.Writer().string(READ_DOMAIN).string(key.codephrase()).bytes(nonce).u32(expires >>> 32)
                .u32(expires & 0xFFFFFFFFL).toBytes();
    }

    /**
     * Checks a read token ({@code SushRead KEY.NONCE.EXPIRES.SIG}, D-035): signed by the ephemeral
     * key of an identity this sled honours, before the token's and the identity's expiry, its key
     * not revoked. It authorizes reading only: the caller admits it for GET of read endpoints.
     */
    public synchronized Identity authenticateRead(String header) throws Refusal {
        AuthorizationHeaders.ReadToken t = AuthorizationHeaders.readToken(header);
        KeyId key = t.key();
        byte[] nonce = t.nonce();
        long expires = t.expires();
        if (revocations.isRevoked(key)) {
            throw new Refusal(401, "revoked", "key " + key + " is revoked");
        }
        Identity i = identities.get(HexFormat.of().formatHex(nonce));
        long now = clock.getAsLong();
        if (i == null || !i.key.equals(key)) {
            throw new Refusal(401, "login-required", "no identity " + key + " here: sush login --web");
        }
        if (now >= expires || now >= i.expires) {
            throw new Refusal(401, "expired", "the read token expired: sush login --web");
        }
        if (!signedBy(i, readBytes(key, nonce, expires), t.sig())) {
            throw new Refusal(401, "bad-signature", "the read token's signature does not verify");
        }
        return i;
    }

    /** Whether {@code sig} is the identity's ephemeral key's Ed25519 signature of {@code signed}. */
    private static boolean signedBy(Identity i, byte[] signed, byte[] sig) {
        if (sig.length != 64) {
            return false;
        }
        Ed25519Signer v = new Ed25519Signer();
        v.init(false, new Ed25519PublicKeyParameters(i.ephemeral, 0));
        v.update(signed, 0, signed.length);
        return v.verifySignature(sig);
    }

    private static boolean live(Identity i, long now) {
        return now < i.expires && now - i.lastUsed < IDLE_MILLIS;
    }
}
