package sush.ops.cli;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.auth.SshKey;
import sush.ops.wire.Answers;
import sush.ops.wire.Iam;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush iam list|available|revoke|unrevoke}: the operators a sled knows, live identities, the
 * keys of the SSH agent (issue 41), rack-wide revocation kept on every sled's disk (issue 36).
 */
@Command(name = "iam", description = "Operators and their identities.", subcommands = {IamCommand.List.class,
        IamCommand.Available.class, IamCommand.Revoke.class, IamCommand.Unrevoke.class})
public final class IamCommand implements Callable<Integer> {
    /** Where this command runs: its usage is printed on the invocation's standard output. */
    private final Invocation invocation;

    IamCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    @Command(name = "list", description = "The sled's operators file and the identities it honours now.")
    static final class List implements Callable<Integer> {
        @Mixin
        Global g;

        @Override
        public Integer call() {
            try {
                JsonNode iam = g.client().get("/iam");
                Iam known = Client.read(iam, Iam.class);
                StringBuilder b = new StringBuilder("operators:\n");
                for (Iam.Operator op : known.operators()) {
                    b.append("  ").append(Said.text(op.keyId())).append("  ").append(Said.text(op.type()))
                            .append("  ").append(Client.printable(Said.text(op.comment())))
                            .append(Said.flag(op.revoked()) ? "  REVOKED" : "").append('\n');
                }
                b.append("identities:\n");
                for (Iam.Identity i : known.identities()) {
                    b.append("  ").append(Said.text(i.keyId())).append("  via ")
                            .append(Client.printable(Said.text(i.acceptor()))).append("  until ")
                            .append(Instant.ofEpochMilli(Said.number(i.expires()))).append('\n');
                }
                g.print(iam, b.toString().stripTrailing());
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    /**
     * {@code sush iam available} (issue 41): the keys the SSH agent holds, each marked by what the
     * sled says of it. The keys sush takes are tried in the agent's order until one logs in (as a
     * command would, with that key); the sled's operators then mark the rest. A key refused says
     * why (not in the operators file, revoked); a key of a type sush does not take is named so.
     */
    @Command(name = "available", description = "The keys your SSH agent holds (SSH_AUTH_SOCK), each marked when the "
            + "sled's operators file lists it, and which one logs in.")
    static final class Available implements Callable<Integer> {
        @Mixin
        Global g;

        @Override
        public Integer call() {
            try {
                String sock = g.invocation().getenv("SSH_AUTH_SOCK");
                if (sock == null || sock.isEmpty()) {
                    throw new Client.Failure(2, "no-agent", "no SSH agent: SSH_AUTH_SOCK is not set (eval "
                            + "\"$(ssh-agent)\" and ssh-add your key)");
                }
                Path socket = g.invocation().cwd().resolve(sock);
                java.util.List<OperatorSigner.AgentKey> keys;
                try {
                    keys = OperatorSigner.agentKeys(socket);
                } catch (SshKey.KeyException e) {
                    throw new Client.Failure(1, "agent", "the SSH agent at " + socket + ": " + e.getMessage());
                }
                String url = g.url();
                Map<String, String> refused = new LinkedHashMap<>();
                Iam iam = null;
                String loginKey = null;
                for (OperatorSigner.AgentKey k : keys) {
                    if (k.key().isEmpty()) {
                        continue;
                    }
                    SshKey key = k.key().get();
                    Client c = g.client(url, new Credentials(() -> OperatorSigner.agent(socket, key::equals),
                            Optional.empty()));
                    try {
                        c.login();
                        iam = Client.read(c.get("/iam"), Iam.class);
                        loginKey = key.id().codephrase();
                        break;
                    } catch (Client.Failure f) {
                        if (!f.code().equals("unknown-key") && !f.code().equals("revoked")) {
                            throw f;
                        }
                        refused.put(key.id().codephrase(), f.code().equals("revoked") ? "revoked" : "not listed");
                    }
                }
                java.util.List<Map<String, Object>> rows = new ArrayList<>();
                StringBuilder b = new StringBuilder("keys of the SSH agent at " + socket + ", as " + url
                        + " sees them:\n");
                for (OperatorSigner.AgentKey k : keys) {
                    String id = k.key().map(x -> x.id().codephrase()).orElse("-");
                    String mark = mark(k, refused, iam, loginKey);
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("key_id", id);
                    row.put("type", k.type());
                    row.put("comment", k.comment());
                    row.put("mark", mark);
                    rows.add(row);
                    b.append("  ").append(id).append("  ").append(Client.printable(k.type())).append("  ")
                            .append(Client.printable(k.comment())).append("  ").append(mark).append('\n');
                }
                if (keys.isEmpty()) {
                    b.append("  (none: ssh-add your key)\n");
                }
                b.append(loginKey != null ? "a command logs in with " + loginKey + " (SUSH_OPERATOR_KEY or "
                        + "--operator-key picks another)" : "no key of the agent may log in at " + url);
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("agent", socket.toString());
                out.put("url", url);
                out.put("keys", rows);
                out.put("logs_in_with", loginKey);
                g.print(out, b.toString());
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }

        private static String mark(OperatorSigner.AgentKey k, Map<String, String> refused, Iam iam, String loginKey) {
            if (k.key().isEmpty()) {
                return "a type sush does not take";
            }
            String id = k.key().get().id().codephrase();
            if (refused.containsKey(id)) {
                return refused.get(id);
            }
            if (iam == null) {
                return "not tried";
            }
            for (Iam.Operator op : iam.operators()) {
                if (id.equals(op.keyId())) {
                    return (Said.flag(op.revoked()) ? "listed, REVOKED" : "listed") + (id.equals(loginKey)
                            ? " (logged in)" : "");
                }
            }
            return "not listed";
        }
    }

    @Command(name = "revoke", description = "End a key's identities on every sled and refuse its logins from now on: "
            + "every sled keeps the revocation on its disk, through restarts and whole-rack cold boots, until "
            + "`sush iam unrevoke`.")
    static final class Revoke implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(paramLabel = "KEY_ID", description = "the operator key's id (a codephrase, as `sush iam list` shows it)")
        String key;

        @Override
        public Integer call() {
            return post(g, "/iam/revoke/" + key, "revoked %s rack-wide");
        }
    }

    @Command(name = "unrevoke", description = "Lift a key's revocation rack-wide (by another operator; logged on every "
            + "sled). A revocation of the key made meanwhile stays.")
    static final class Unrevoke implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(paramLabel = "KEY_ID", description = "the operator key's id (a codephrase, as `sush iam list` shows it)")
        String key;

        @Override
        public Integer call() {
            return post(g, "/iam/unrevoke/" + key, "lifted the revocation of %s rack-wide");
        }
    }

    /** POSTs {@code path} and says {@code said} (its {@code %s}: the key id the sled answers). */
    private static int post(Global g, String path, String said) {
        try {
            JsonNode r = g.client().post(path, Map.of());
            g.print(r, String.format(said, Said.text(Client.read(r, Answers.Revocation.class).keyId())));
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
