package sush.gossip.node;

import java.time.Duration;

/**
 * A sled's gossip settings. Timeouts are the caller's (issue 3): each is a bound after which
 * only the one link concerned is poisoned.
 *
 * @param name          this sled's name on the wire (its baseboard), at most 256 bytes of UTF-8
 * @param sessionTimeout a session not finished by then poisons its link
 * @param idleTimeout   a link that received nothing for this long is poisoned
 * @param periodicSync  every connected peer gets a session this often, healing lost pushes
 * @param reconnectMin  first delay before redialling a lost peer; doubles per failure
 * @param reconnectMax  the largest redial delay
 */
public record GossipConfig(String name, Duration sessionTimeout, Duration idleTimeout, Duration periodicSync,
        Duration reconnectMin, Duration reconnectMax) {
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Anti-entropy only: a push is lost only with its link, and every new link starts with a
     * session, so the periodic session is a slow safety net (D-008).
     */
    public static final Duration DEFAULT_PERIODIC_SYNC = Duration.ofSeconds(30);

    public GossipConfig {
        if (periodicSync.compareTo(idleTimeout) >= 0) {
            throw new IllegalArgumentException("idle timeout must exceed the periodic sync, or idle links die");
        }
        if (reconnectMin.isZero() || reconnectMin.compareTo(reconnectMax) > 0) {
            throw new IllegalArgumentException("need 0 < reconnectMin <= reconnectMax");
        }
    }

    /** Defaults for a rack: 10 s sessions, 30 s periodic sync, 90 s idle, redial 20 ms to 2 s. */
    public static GossipConfig defaults(String name) {
        return new GossipConfig(name, DEFAULT_SESSION_TIMEOUT, Duration.ofSeconds(90), DEFAULT_PERIODIC_SYNC,
                Duration.ofMillis(20), Duration.ofSeconds(2));
    }

    public GossipConfig withPeriodicSync(Duration period, Duration idle) {
        return new GossipConfig(name, sessionTimeout, idle, period, reconnectMin, reconnectMax);
    }

    public GossipConfig withSessionTimeout(Duration timeout) {
        return new GossipConfig(name, timeout, idleTimeout, periodicSync, reconnectMin, reconnectMax);
    }
}
