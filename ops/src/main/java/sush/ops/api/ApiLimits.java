package sush.ops.api;

import java.time.Duration;

/**
 * Every bound the API keeps (issue 22 and after): on connections, event streams, downloads,
 * relays, pages and waits. One value per API front, read when it is made, so that a client that
 * holds on, reads slowly or asks for everything cannot take the sled's operators' place.
 *
 * @param eventHistory events a reconnecting client can catch up on with Last-Event-ID
 * @param maxEventLag events one stream may fall behind by before it is dropped (its client
 *        reconnects with Last-Event-ID)
 * @param maxEventStreams open event streams ({@code /events}); past it a new one is a 503
 * @param fdReserve file descriptors the API never takes: a new connection is closed at once when
 *        fewer are left under the process's limit, so that the locker's slot files, the journal
 *        and the jobs' pipes and output files always open
 * @param maxConnections the API's open connections: past it the oldest idle one is closed for a
 *        newcomer, or the newcomer when none is idle
 * @param requestDeadline a connection that has not delivered a whole request head by then is closed
 * @param idleTimeout a keep-alive connection idle between requests this long is closed
 * @param healthDeadline how long the sled's loop may take to answer {@code /health} before the
 *        sled counts as stalled
 * @param historyLimit jobs per page of {@code GET /jobs} by default
 * @param historyMaxLimit jobs per page of {@code GET /jobs} at most
 * @param chainPage the links one {@code GET /sessions/{sid}/chain} answers; the client asks again
 *        after the last
 * @param rackSledWait how long {@code GET /rack} waits for another sled's state before drawing it
 *        unreachable
 * @param relayConnections connections this server holds to one other sled's API at most (a page
 *        asks each sled one thing at a time)
 * @param relayAcquireWait how long a relay waits for one of them
 * @param relayIdle an idle one is closed after this, before the other sled's {@code idleTimeout}
 *        closes it
 * @param maxRelayClients relay clients kept (a rack has 32 sleds; a moved API adds one); past it
 *        they are made again
 * @param relayResponseTimeout how long a relayed request waits for the other sled's answer to begin
 * @param ownStatusWait how long an attached client's terminal waits, once closed, for the job's
 *        end from this sled
 * @param ownStatusPoll how often it asks meanwhile
 * @param maxDownloads output downloads in progress at once; past it a new one is a 503
 * @param writeStall a download or stream whose client has taken no byte for this long is closed
 */
public record ApiLimits(int eventHistory, int maxEventLag, int maxEventStreams, int fdReserve, int maxConnections,
        Duration requestDeadline, Duration idleTimeout, Duration healthDeadline, int historyLimit,
        int historyMaxLimit, int chainPage, Duration rackSledWait, int relayConnections, Duration relayAcquireWait,
        Duration relayIdle, int maxRelayClients, Duration relayResponseTimeout, Duration ownStatusWait,
        Duration ownStatusPoll, int maxDownloads, Duration writeStall) {

    /** The property that changes {@link #writeStall()} for API fronts made afterwards. */
    static final String WRITE_STALL_PROPERTY = "sush.api.write-stall-ms";
    /** {@link #writeStall()} when the property does not say otherwise. */
    private static final Duration WRITE_STALL = Duration.ofSeconds(30);

    /**
     * The limits a sled's API serves with; the write stall is read from the property
     * {@code sush.api.write-stall-ms} now (a test makes a front with a short one).
     */
    public static ApiLimits defaults() {
        return new ApiLimits(4096, 1024, 64, 256, 512, Duration.ofSeconds(10), Duration.ofSeconds(60),
                Duration.ofSeconds(1), 20, 1000, 1024, Duration.ofMillis(2_500), 64, Duration.ofSeconds(5),
                Duration.ofSeconds(30), 256, Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMillis(50), 32,
                Duration.ofMillis(Long.getLong(WRITE_STALL_PROPERTY, WRITE_STALL.toMillis())));
    }
}
