package sush.ops.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import sush.ops.auth.OperatorSigner;
import sush.ops.auth.SshKey;
import sush.ops.wire.Answers;
import sush.projections.id.IdException;
import sush.projections.id.KeyId;
import sush.projections.job.KeyException;
import sush.projections.job.SignerTrust;

/**
 * {@code sush trust list|add|revoke} (issue 41, D-062): the signer keys the rack trusts, managed
 * rack-wide without restarting a daemon. A change is signed with the operator's own key (the one
 * it logged in with), applied by the sled asked, gossiped, and checked by every sled against its
 * operators file; each keeps it on its disk. A revoked key's jobs and grants are refused from then
 * on ({@code InvalidJob{RevokedSigner}}), and it is never trusted again. {@code --trust} stays the
 * sled's initial list.
 */
@Command(name = "trust", description = "The signer keys the rack trusts: list them, add one, revoke one (rack-wide, "
        + "no restart).", subcommands = {TrustCommand.List.class, TrustCommand.Add.class, TrustCommand.Revoke.class})
public final class TrustCommand implements Callable<Integer> {
    private final Invocation invocation;

    TrustCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    @Command(name = "list", description = "The signer keys trusted now, the initial ones (--trust), and the changes "
            + "operators made.")
    static final class List implements Callable<Integer> {
        @Mixin
        Global g;

        @Override
        public Integer call() {
            try {
                Answers.Trust t = g.client().get("/trust", Answers.Trust.class);
                StringBuilder b = new StringBuilder("trusted:\n");
                for (String k : t.trusted()) {
                    b.append("  ").append(Client.printable(k)).append(t.initial().contains(k) ? "  (initial)" : "")
                            .append('\n');
                }
                entries(b.append("added:\n"), t.added());
                entries(b.append("revoked:\n"), t.revoked());
                g.print(t, b.toString().stripTrailing());
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    /** One line per change: the key, the operator key that made it, the change's id. */
    private static void entries(StringBuilder b, java.util.List<Answers.TrustEntry> changes) {
        changes.forEach(e -> b.append("  ").append(Client.printable(e.keyId())).append("  by ")
                .append(Client.printable(e.by())).append("  change ").append(Client.printable(e.id())).append('\n'));
    }

    @Command(name = "add", description = "Trust a signer's public key (PEM, as `sush keygen` writes signer.pub) on "
            + "every sled.")
    static final class Add implements Callable<Integer> {
        @Mixin
        Global g;

        @Parameters(paramLabel = "PUBKEY", description = "the signer's public key file (PEM)")
        Path pub;

        @Override
        public Integer call() {
            try {
                byte[] spki;
                try {
                    spki = SignerTrust.spkiOfPem(Files.readString(g.invocation().path(pub)));
                } catch (IOException | KeyException e) {
                    throw new Client.Failure(2, "bad-key", pub + ": not a signer public key: " + e.getMessage());
                }
                return change(g, true, SignerTrust.keyIdOf(spki), spki);
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "revoke", description = "Revoke a signer key on every sled: its jobs and grants are refused from "
            + "then on, and it is never trusted again.")
    static final class Revoke implements Callable<Integer> {
        @Mixin
        Global g;

        @Parameters(paramLabel = "KEY", description = "the signer key's id (as `sush trust list` shows it)")
        String key;

        @Override
        public Integer call() {
            try {
                KeyId id;
                try {
                    id = KeyId.parse(key);
                } catch (IdException e) {
                    throw new Client.Failure(2, "bad-key", "not a key id: " + e.getMessage());
                }
                return change(g, false, id, new byte[0]);
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    /** Signs the change with the key this client logged in with, and asks the sled to apply and gossip it. */
    static int change(Global g, boolean add, KeyId key, byte[] spki) throws Client.Failure {
        Client c = g.client();
        if (c.credentials().identity().isEmpty()) {
            c.login();
        }
        KeyId me = c.credentials().identity().orElseThrow().key();
        OperatorSigner signer = null;
        byte[] id = new byte[16];
        new SecureRandom().nextBytes(id);
        String changeId = HexFormat.of().formatHex(id);
        byte[] signature;
        try {
            for (OperatorSigner s : c.credentials().signers()) {
                if (s.publicKey().id().equals(me)) {
                    signer = s;
                }
            }
            if (signer == null) {
                throw new Client.Failure(2, "no-operator-key", "the key this client logged in with (" + me.codephrase()
                        + ") is not at hand to sign the change");
            }
            signature = signer.sign(SignerTrust.body(add, key, spki, changeId));
        } catch (SshKey.KeyException e) {
            throw new Client.Failure(2, "no-operator-key", e.getMessage());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("add", add);
        body.put("key_id", key.codephrase());
        if (add) {
            body.put("spki", Base64.getEncoder().encodeToString(spki));
        }
        body.put("id", changeId);
        body.put("operator_key", Base64.getEncoder().encodeToString(signer.publicKey().blob()));
        body.put("signature", Base64.getEncoder().encodeToString(signature));
        Answers.TrustChanged r = c.post("/trust", body, Answers.TrustChanged.class);
        g.print(r, (add ? "trusted " : "revoked ") + Client.printable(Said.text(r.keyId())) + " rack-wide (change "
                + Client.printable(Said.text(r.id())) + (Said.flag(r.changed()) ? "" : "; it already was") + ")");
        return 0;
    }
}
