package sush.ops.bench;

import java.util.Map;

import sush.ops.cli.Client;

/**
 * Starts a session through {@code c} and waits until that sled folded it: a read right after the
 * start may come first ("no session is active"), and a start sent just before a universe merge
 * may be lost with the old universe, so it is started again (at most three times).
 */
public final class ActiveSession {
    private ActiveSession() {
    }

    /** The id of the session started and now active at {@code c}'s sled. */
    public static String start(Client c) throws Client.Failure, InterruptedException {
        for (int attempt = 0; attempt < 3; attempt++) {
            String started = c.post("/sessions/start", Map.of()).get("session_id").asString();
            for (int i = 0; i < 100; i++) {
                try {
                    if (started.equals(c.get("/sessions").path("session_id").asString(""))) {
                        return started;
                    }
                } catch (Client.Failure f) {
                    // not folded yet
                }
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("no session became active at " + c.url() + " in three starts");
    }
}
