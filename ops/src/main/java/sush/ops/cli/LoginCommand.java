package sush.ops.cli;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush login} (alias {@code whoami}): logs in at a sled with the operator's SSH key (the
 * agent, or {@code --operator-key}) and caches the identity; every sled honours it once the login
 * has gossiped (security.md section 2).
 */
@Command(name = "login", aliases = "whoami", description = "Log in with your SSH key (agent or --operator-key) and "
        + "show who you are; later commands reuse the identity until it expires.")
public final class LoginCommand implements Callable<Integer> {
    @Mixin
    Global g;

    @Override
    public Integer call() {
        try {
            Client c = g.client();
            JsonNode who = c.login();
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("key_id", who.get("key_id").asString());
            doc.put("acceptor", who.get("acceptor").asString());
            doc.put("expires", Instant.ofEpochMilli(who.get("expires").asLong()).toString());
            doc.put("key", c.credentials().signer().publicKey().type());
            g.print(doc, "logged in as " + doc.get("key_id") + " (" + doc.get("key") + ") at " + doc.get("acceptor")
                    + " until " + doc.get("expires") + " (idle 10 min ends it sooner)");
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        } catch (sush.ops.auth.SshKey.KeyException e) {
            return g.fail(new Client.Failure(2, "no-operator-key", e.getMessage()));
        }
    }
}
