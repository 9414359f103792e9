package sush.ops.api;

import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import sush.gossip.Entropy;
import sush.gossip.node.GossipNode;
import sush.locker.store.Locker;
import sush.ops.api.Replies.Refused;
import sush.ops.auth.Authority;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.id.Hashes;
import sush.projections.id.KeyId;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * What the API's resources share, one per {@link ApiServer} (never static: two fronts of one JVM
 * share nothing): the sled's parts a request reaches (its config, gossip node, runtime, locker,
 * launcher, entropy and operators), the API's limits, how a request becomes a gossip message,
 * and the little state more than one resource reads (the rack's id and CA, downloads in progress).
 */
final class ApiContext {
    private final SledConfig cfg;
    private final GossipNode node;
    private final SledRuntime runtime;
    private final Locker<?> locker;
    private final ProcessLauncher launcher;
    private final Entropy entropy;
    /** Who may ask (security.md section 2): every request but the login's carries an identity. */
    private final Authority authority;
    private final ApiLimits limits;
    private volatile Optional<X509Certificate> relayCa = Optional.empty();
    /** {@link #rackId()}, worked out once per CA (cleared when the relay's CA is given). */
    private volatile String rackId;
    /** Output downloads and relays in progress, against {@link ApiLimits#maxDownloads()}. */
    private final AtomicInteger downloads = new AtomicInteger();

    ApiContext(SledConfig cfg, GossipNode node, SledRuntime runtime, Locker<?> locker, ProcessLauncher launcher,
            Entropy entropy, Authority authority, ApiLimits limits) {
        this.cfg = cfg;
        this.node = node;
        this.runtime = runtime;
        this.locker = locker;
        this.launcher = launcher;
        this.entropy = entropy;
        this.authority = authority;
        this.limits = limits;
    }

    SledConfig cfg() {
        return cfg;
    }

    GossipNode node() {
        return node;
    }

    SledRuntime runtime() {
        return runtime;
    }

    Locker<?> locker() {
        return locker;
    }

    ProcessLauncher launcher() {
        return launcher;
    }

    Entropy entropy() {
        return entropy;
    }

    Authority authority() {
        return authority;
    }

    ApiLimits limits() {
        return limits;
    }

    /** Gossips {@code m}; a node that cannot send now makes the request a 503 {@code not-ready}. */
    void send(Message m) {
        try {
            node.send(MessageCodec.encode(m));
        } catch (RuntimeException e) {
            throw new Refused(503, "not-ready", "this sled cannot gossip right now: " + e.getMessage());
        }
    }

    /** The rack's session ordering: the locker's record format says it. */
    Ordering ordering() {
        return locker.format().ordering().equals("signed") ? Ordering.SIGNED : Ordering.CAUSAL;
    }

    /**
     * The rack CA that another sled's HTTPS API must chain to when this sled relays a request to
     * it (its certificate must name that sled); it names the rack too.
     */
    void relayTrust(X509Certificate ca) {
        this.relayCa = Optional.of(ca);
        this.rackId = null;
    }

    /** This sled's certificate from its rack CA (D-060: what its receipts are checked by), if any. */
    private volatile Optional<X509Certificate> certificate = Optional.empty();

    void certificate(X509Certificate c) {
        certificate = Optional.of(c);
    }

    Optional<X509Certificate> certificate() {
        return certificate;
    }

    /** The rack CA given by {@link #relayTrust}, if any. */
    Optional<X509Certificate> relayCa() {
        return relayCa;
    }

    /**
     * This rack's id: the key id of its CA (SHA3-256 of the CA certificate's public key, cut to 88
     * bits, as a codephrase), the same on every sled of the rack; a rack without a CA (plain
     * gossip, tests) is named by the key id of the first signer its sleds trust, prefixed
     * {@code signer-}.
     */
    String rackId() {
        String id = rackId;
        if (id == null) {
            id = computeRackId();
            rackId = id;
        }
        return id;
    }

    private String computeRackId() {
        if (relayCa.isPresent()) {
            return new KeyId(Hashes.low88(Hashes.sha3Raw(relayCa.get().getPublicKey().getEncoded()))).codephrase();
        }
        return "signer-" + cfg.trust().keyIds().stream().map(KeyId::codephrase).sorted().findFirst().orElse("none");
    }

    /** Takes one of the downloads in progress, false (and none taken) at the bound. */
    boolean startDownload() {
        if (downloads.incrementAndGet() > limits.maxDownloads()) {
            downloads.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Gives back one taken by {@link #startDownload()}. */
    void endDownload() {
        downloads.decrementAndGet();
    }
}
