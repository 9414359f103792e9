package sush.ops.bench;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.awaitility.core.ConditionTimeoutException;
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
            try {
                await("session " + started + " active").atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(50)).ignoreException(Client.Failure.class) // not folded yet
                        .until(() -> started.equals(c.get("/sessions").path("session_id").asString("")));
                return started;
            } catch (ConditionTimeoutException lost) {
                // lost with an old universe: started again
            }
        }
        throw new IllegalStateException("no session became active at " + c.url() + " in three starts");
    }
}
