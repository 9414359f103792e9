package sush.ops.cli;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush iam list|revoke|unrevoke}: the operators a sled knows, live identities, rack-wide
 * revocation kept on every sled's disk (issue 36).
 */
@Command(name = "iam", description = "Operators and their identities.", subcommands = {IamCommand.List.class,
        IamCommand.Revoke.class, IamCommand.Unrevoke.class})
public final class IamCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.out);
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
                StringBuilder b = new StringBuilder("operators:\n");
                for (JsonNode op : iam.get("operators")) {
                    b.append("  ").append(op.get("key_id").asString()).append("  ").append(op.get("type").asString())
                            .append("  ").append(Client.printable(op.get("comment").asString()))
                            .append(op.get("revoked").asBoolean() ? "  REVOKED" : "").append('\n');
                }
                b.append("identities:\n");
                for (JsonNode i : iam.get("identities")) {
                    b.append("  ").append(i.get("key_id").asString()).append("  via ")
                            .append(Client.printable(i.get("acceptor").asString())).append("  until ")
                            .append(Instant.ofEpochMilli(i.get("expires").asLong())).append('\n');
                }
                g.print(iam, b.toString().stripTrailing());
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
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
            g.print(r, String.format(said, r.get("key_id").asString()));
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
