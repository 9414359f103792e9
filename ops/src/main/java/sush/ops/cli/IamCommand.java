package sush.ops.cli;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import sush.ops.wire.Answers;
import sush.ops.wire.Iam;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush iam list|revoke|unrevoke}: the operators a sled knows, live identities, rack-wide
 * revocation kept on every sled's disk (issue 36).
 */
@Command(name = "iam", description = "Operators and their identities.", subcommands = {IamCommand.List.class,
        IamCommand.Revoke.class, IamCommand.Unrevoke.class})
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
