package sush.ops.api;

import static sush.ops.api.Gate.body;
import static sush.ops.api.Gate.clientOf;
import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.json;
import static sush.ops.api.Replies.keyParam;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.util.retry.Retry;
import sush.ops.wire.Answers;
import sush.ops.wire.Bodies;
import sush.ops.wire.Iam;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.ops.api.Replies.Refused;
import sush.ops.auth.Authority;
import sush.ops.auth.SshKey;
import sush.projections.id.KeyId;
import sush.projections.job.SignerTrust;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * Who is logged in, and who may no longer be (security.md section 2, issue 36): the login's
 * challenge and the login itself, the identities and operators a sled knows, revoking a key
 * and lifting its revocation rack-wide; and, from gossip, the logins and revocations other
 * sleds made, with this sled's own told again to every universe it enters.
 */
final class Logins {
    /** The API's one logger name, whichever class logs. */
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

    private final ApiContext api;
    private final Authority authority;
    private final Gate gate;

    Logins(ApiContext api, Gate gate) {
        this.api = api;
        this.authority = api.authority();
        this.gate = gate;
    }

    /**
     * {@code POST /login/challenge}: a fresh nonce. Its body is empty or a JSON object, at most
     * {@link SignedRequests#MAX_BODY_BYTES} like every other (issue 35: a 20 MB or non-JSON body
     * was read and ignored), else 413 or 400.
     */
    Publisher<Void> challenge(HttpServerRequest q, HttpServerResponse s) {
        return body(q).flatMap(b -> {
            if (b.length > 0) {
                try {
                    if (!Json.MAPPER.readTree(b).isObject()) {
                        throw new IllegalArgumentException("not a JSON object");
                    }
                } catch (RuntimeException e) {
                    return error(s, 400, "malformed-body", "a challenge's body is empty or a JSON object");
                }
            }
            return json(s, 200, new Answers.Challenge(Base64.getEncoder().encodeToString(authority.challenge(
                    clientOf(q))), Authority.CHALLENGE_MILLIS / 1000));
        }).onErrorResume(Refused.class, e -> Mono.from(error(s, e.status, e.code, e.getMessage())));
    }

    /** {@code POST /login}: an operator's answer to a challenge; the login is gossiped with its evidence. */
    Publisher<Void> login(HttpServerRequest q, HttpServerResponse s) {
        return body(q).flatMap(b -> {
            byte[][] f;
            try {
                Bodies.Login l = Bodies.read(b, Bodies.Login.class);
                f = new byte[][] {Bodies.base64(l.key(), "key"), Bodies.base64(l.nonce(), "nonce"),
                    Bodies.base64(l.clientNonce(), "client_nonce"), Bodies.base64(l.ephemeral(),
                            "ephemeral"), Bodies.base64(l.signature(), "signature")};
            } catch (BadRequest e) {
                return error(s, 400, e.code(), e.getMessage());
            }
            if (f[1].length != Authority.NONCE_BYTES || f[2].length > 64 || f[3].length != 32
                    || f[0].length > SshKey.MAX_BLOB || f[4].length > SshKey.MAX_BLOB) {
                return error(s, 400, "malformed-body", "nonce is 16 bytes, client_nonce at most 64, ephemeral 32");
            }
            Message.OperatorLogin m;
            try {
                m = authority.login(api.cfg().me().baseboard(), clientOf(q), f[0], f[1], f[2], f[3], f[4]);
            } catch (Authority.Refusal e) {
                return Mono.from(gate.unauthorized(q, s, e));
            }
            // Gossiped with its evidence: every sled checks it against its own operators file.
            api.send(new Message.OperatorLogin(m.acceptor(), m.key(), m.nonce(), m.clientNonce(), m.ephemeral(),
                    m.signature(), m.expires()));
            return json(s, 200, new Answers.LoggedIn(keyOf(m).codephrase(), m.expires(), m.acceptor()));
        }).onErrorResume(Refused.class, e -> error(s, e.status, e.code, e.getMessage()));
    }

    private static KeyId keyOf(Message.OperatorLogin m) {
        try {
            return SshKey.fromBlob(m.key()).id();
        } catch (SshKey.KeyException e) {
            throw new IllegalStateException("a login the authority accepted has a readable key", e);
        }
    }

    /** {@code GET /iam}: the identities logged in here, and the operators with whether each is revoked. */
    Iam iam() {
        List<Iam.Identity> out = new ArrayList<>();
        for (Authority.Identity i : authority.identities()) {
            out.add(new Iam.Identity(i.key().codephrase(), i.comment(), i.acceptor(), i.expires(), i.lastUsed()));
        }
        List<Iam.Operator> ops = new ArrayList<>();
        authority.operators().forEach((id, op) -> ops.add(new Iam.Operator(id.codephrase(), op.key().type(),
                op.comment(), authority.isRevoked(id))));
        return new Iam(out, ops);
    }

    /** {@code POST /iam/revoke/{kid}}: revokes the key here and rack-wide (gossiped), ending its identities. */
    Mono<Object> revoke(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        KeyId key = keyParam(q);
        byte[] id = new byte[16];
        api.entropy().nextBytes(id);
        Authority.Revocation r = new Authority.Revocation(key, who.key().codephrase(), HexFormat.of().formatHex(id));
        api.send(new Message.OperatorRevoked(r.key(), r.by(), r.id()));
        int ended = authority.revoke(r);
        return Mono.just(new Answers.Revocation(key.codephrase(), true, ended, r.id(), null));
    }

    /**
     * {@code POST /iam/unrevoke/{kid}} (issue 36): lifts the key's revocation in force on this
     * sled, rack-wide (gossiped, kept on every sled's disk); a revocation made meanwhile stays.
     */
    Mono<Object> unrevoke(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        KeyId key = keyParam(q);
        Optional<Authority.Revocation> r = authority.revocation(key);
        if (r.isEmpty()) {
            throw new Refused(404, "not-revoked", "key " + key.codephrase() + " is not revoked on sled "
                    + api.cfg().me().baseboard());
        }
        api.send(new Message.OperatorUnrevoked(key, who.key().codephrase(), r.get().id()));
        authority.unrevoke(key, who.key().codephrase(), r.get().id());
        LOG.warn("operator {} lifted the revocation of key {} (revoked by {})", who.key().codephrase(),
                key.codephrase(), r.get().by());
        return Mono.just(new Answers.Revocation(key.codephrase(), false, null, null, r.get().id()));
    }

    /**
     * Every revocation this sled keeps, and every lifted one it remembers, told to the universe it
     * just entered (issue 36), like the newest grant: a cold-booted rack, or a sled that missed
     * one, learns it; and the live identities its logins made. Sends refused while the node
     * bootstraps are tried again.
     */
    void regossipRevocations() {
        List<Message> all = new ArrayList<>();
        // The live identities this sled's logins made, too: one made just before a migration
        // would otherwise be unknown to the sleds of the new universe ("no identity here").
        all.addAll(authority.liveLoginsAcceptedBy(api.cfg().me().baseboard()));
        authority.revocations().forEach(r -> all.add(new Message.OperatorRevoked(r.key(), r.by(), r.id())));
        authority.liftedRevocations().forEach(r -> all.add(new Message.OperatorUnrevoked(r.key(), r.by(), r.id())));
        // Issue 41: the signer-trust changes this sled applied, with their operators' signatures.
        api.cfg().trust().applied().forEach(c -> all.add(new Message.TrustChange(c)));
        if (all.isEmpty()) {
            return;
        }
        // Off the sled's loop (the event is emitted there): sends never hold it up.
        Mono.fromRunnable(() -> all.forEach(m -> api.node().send(MessageCodec.encode(m))))
                .subscribeOn(Schedulers.parallel())
                .retryWhen(Retry.fixedDelay(240, Duration.ofMillis(250)))
                .subscribe(null, e -> LOG.error("the revoked operators could not be told to the new universe: {}",
                        e.toString()));
    }

    // ---- Signer trust, rack-wide (issue 41, D-062) ------------------------------------------

    /** {@code GET /trust}: the signer keys trusted now, the initial ones, the changes applied. */
    Answers.Trust trust() {
        TrustStore t = api.cfg().trust();
        List<Answers.TrustEntry> added = new ArrayList<>();
        List<Answers.TrustEntry> revoked = new ArrayList<>();
        for (SignerTrust c : t.applied()) {
            (c.add() ? added : revoked).add(new Answers.TrustEntry(c.key().codephrase(), c.id(), byOf(c)));
        }
        return new Answers.Trust(t.keyIds().stream().map(KeyId::codephrase).sorted().toList(),
                t.initialKeyIds().stream().map(KeyId::codephrase).sorted().toList(), added, revoked);
    }

    private static String byOf(SignerTrust c) {
        try {
            return SshKey.fromBlob(c.operatorKey()).id().codephrase();
        } catch (SshKey.KeyException e) {
            return "?";
        }
    }

    /**
     * {@code POST /trust}: an operator's signed change. The operator who signed it must be the
     * one asking and an operator here, not revoked; a revoked key is never added again. Applied
     * here at once, kept on disk, then gossiped with its signature: every sled checks it against
     * its own operators file.
     */
    Mono<Object> changeTrust(byte[] body, Authority.Identity who) throws BadRequest {
        Bodies.TrustChange b = Bodies.read(body, Bodies.TrustChange.class);
        if (b.add() == null || b.keyId() == null || b.id() == null || b.operatorKey() == null
                || b.signature() == null || (b.add() && b.spki() == null)) {
            throw new BadRequest("malformed-body", "add, key_id, id, operator_key, signature (and spki to add)");
        }
        SignerTrust c;
        try {
            c = new SignerTrust(b.add(), KeyId.parse(b.keyId()), b.add() ? Bodies.base64(b.spki(), "spki")
                    : new byte[0], b.id(), Bodies.base64(b.operatorKey(), "operator_key"), Bodies.base64(
                            b.signature(), "signature"));
        } catch (sush.projections.id.IdException | IllegalArgumentException e) {
            throw new BadRequest("malformed-body", e.getMessage());
        }
        if (c.add() && !SignerTrust.keyIdOf(c.spki()).equals(c.key())) {
            throw new BadRequest("bad-key", "key_id is not the id of the key given");
        }
        if (!byOf(c).equals(who.key().codephrase())) {
            throw new Refused(403, "not-yours", "a change is signed by the operator who asks for it");
        }
        if (!authority.authorizes(c)) {
            throw new Refused(403, "not-authorized", "the change's signature is not one of an operator of this sled");
        }
        TrustStore t = api.cfg().trust();
        if (c.add() && t.revokedKeyIds().contains(c.key())) {
            throw new Refused(409, "revoked-signer", "key " + c.key().codephrase() + " was revoked: it is never "
                    + "trusted again (make a new signer key)");
        }
        boolean changed = t.apply(c);
        authority.signerTrust().write(t.applied());
        api.send(new Message.TrustChange(c));
        LOG.warn("operator {} {} signer key {} rack-wide (change {})", who.key().codephrase(), c.add() ? "added"
                : "revoked", c.key().codephrase(), c.id());
        return Mono.just(new Answers.TrustChanged(c.key().codephrase(), c.add() ? "add" : "revoke", c.id(),
                changed));
    }

    /** Logins and revocations other sleds gossip (this sled's own were applied when made). */
    void onOperatorMessage(Message m) {
        if (m instanceof Message.TrustChange) {
            // Issue 41: applied here too (the fold applies it in its order; whichever comes first),
            // and kept on disk before anything else is said of it.
            TrustStore t = api.cfg().trust();
            t.apply(((Message.TrustChange) m).change());
            if (!t.applied().isEmpty()) {
                try {
                    authority.signerTrust().write(t.applied());
                } catch (IllegalStateException e) {
                    LOG.error("{}", e.getMessage());
                }
            }
            return;
        }
        if (m instanceof Message.OperatorLogin) {
            try {
                authority.accept((Message.OperatorLogin) m);
            } catch (Authority.Refusal e) {
                // Not an operator here (or revoked): this sled does not honour it.
            } catch (RuntimeException e) {
                // A malformed login refused by a bug is still refused; the stream goes on.
                System.err.println("sush daemon: a gossiped login was not honoured: " + e);
            }
        } else if (m instanceof Message.OperatorRevoked) {
            Message.OperatorRevoked r = (Message.OperatorRevoked) m;
            try {
                authority.revoke(new Authority.Revocation(r.key(), r.by(), r.id()));
            } catch (IllegalStateException e) {
                // In force in memory; not kept: said loudly, a restart would forget it.
                LOG.error("{}", e.getMessage());
            }
        } else if (m instanceof Message.OperatorUnrevoked) {
            Message.OperatorUnrevoked u = (Message.OperatorUnrevoked) m;
            try {
                authority.unrevoke(u.key(), u.by(), u.lifts());
            } catch (IllegalStateException e) {
                LOG.error("{}", e.getMessage());
            }
        }
    }
}
