package sush.ops.cli;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import sush.ops.auth.OperatorSigner;
import sush.ops.auth.SshKey;
import sush.ops.wire.Answers;

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
    @picocli.CommandLine.Option(names = "--web", description = "also print the rack page's address with a read token "
            + "of this login (it reads the rack's state, outputs and events; it starts nothing) for --hours")
    boolean web;
    @picocli.CommandLine.Option(names = "--hours", defaultValue = "8", description = "how long the page's read token "
            + "lasts (at most the login's own expiry; default: ${DEFAULT-VALUE})")
    int hours;

    @Override
    public Integer call() {
        try {
            Client c = g.client();
            Answers.LoggedIn who = Client.read(c.login(), Answers.LoggedIn.class);
            if (web) {
                if (hours < 1) {
                    throw new Client.Failure(2, "bad-hours", "--hours is at least 1");
                }
                String t = c.credentials().readToken(System.currentTimeMillis() + hours * 3_600_000L).orElseThrow();
                String url = c.url() + "/#token=" + t;
                g.print(Map.of("url", url, "key_id", Said.text(who.keyId())), "the rack page (read only; keep "
                        + "the address private, it carries your read token):\n" + url);
                return 0;
            }
            String keyId = Said.text(who.keyId());
            String acceptor = Said.text(who.acceptor());
            String expires = Instant.ofEpochMilli(Said.number(who.expires())).toString();
            String key = "?";
            for (OperatorSigner s : c.credentials().signers()) {
                if (s.publicKey().id().codephrase().equals(keyId)) {
                    key = s.publicKey().type(); // the agent's key that logged in, not its first one
                }
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("key_id", keyId);
            doc.put("acceptor", acceptor);
            doc.put("expires", expires);
            doc.put("key", key);
            g.print(doc, "logged in as " + keyId + " (" + key + ") at " + acceptor + " until " + expires
                    + " (idle 10 min ends it sooner)");
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        } catch (SshKey.KeyException e) {
            return g.fail(new Client.Failure(2, "no-operator-key", e.getMessage()));
        }
    }
}
