package sush.ops;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fold.Ordering;

/**
 * Test fixture: the rack the operator's client is checked against end to end (issue 18), a signed
 * 2-sled rack of real daemons in their own JVMs whose maxima are set on their command lines (60
 * CPU seconds, 600 s of wall time), each sled announced to the other before a check runs; and the
 * environment the CLI runs in there.
 */
abstract class ClientRack extends ProcessRack {
    /** Starts the rack and waits until both sleds answer and each knows the other. */
    void startClientRack() throws Exception {
        rack = RackCommand.create(dir, 2, LocalRack.freePorts(2), Ordering.SIGNED);
        for (int i = 0; i < 2; i++) {
            processes.add(RackAccess.start(dir, rack.sleds().get(i), List.of(), List.of("--max-cpu-seconds", "60",
                    "--max-wall-time", "600")));
        }
        for (int i = 0; i < 2; i++) {
            assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
        }
        // Both sleds know each other (and each other's API) before the checks begin.
        await("each sled announced to the other", () -> {
            for (int i = 0; i < 2; i++) {
                try {
                    if (client(i).get("/versions").get("sleds").size() < 2) {
                        return false;
                    }
                } catch (Client.Failure f) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Sled {@code i}'s API, as the operator names it ({@code --url}). */
    String url(int i) {
        return "http://" + rack.sleds().get(i).api();
    }

    /** Sled {@code i}'s baseboard. */
    String sled(int i) {
        return rack.sleds().get(i).baseboard();
    }

    /**
     * The CLI's environment: this process's without its {@code SUSH_*} variables, with the rack's
     * signer and operator keys and rack file, and the CLI's cache and state in the test's directory.
     */
    Map<String, String> cliEnvironment() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("SUSH_"));
        env.put("SUSH_SIGNER_KEY", dir.resolve("signer.key").toString());
        env.put("SUSH_OPERATOR_KEY", dir.resolve(RackCommand.OPERATOR_KEY).toString());
        env.put("SUSH_RACK", dir.resolve("rack.json").toString());
        env.put("XDG_CACHE_HOME", dir.resolve("cache").toString());
        env.put("XDG_STATE_HOME", dir.resolve("state").toString());
        return env;
    }
}
