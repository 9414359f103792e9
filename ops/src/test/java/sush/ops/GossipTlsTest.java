package sush.ops;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import reactor.core.scheduler.Schedulers;
import sush.gossip.Entropy;
import sush.gossip.link.Link;
import sush.gossip.net.GossipTls;
import sush.gossip.net.TcpTransport;
import sush.gossip.node.GossipConfig;
import sush.gossip.node.GossipNode;
import sush.gossip.net.RackCa;
import sush.ops.daemon.RackFile;

/**
 * The rack's gossip port against strangers (security.md section 1, issue 14): real daemons with
 * mutual TLS; a plain-TCP client, garbage bytes, a certificate from another CA, an expired one,
 * and a valid rack certificate that claims another sled's name are each refused on their one
 * connection, and the rack goes on serving.
 */
class GossipTlsTest extends TwoSledRack {

    private static String gossip(int i) {
        return rack.rack.sleds().get(i).gossip();
    }

    private static String board(int i) {
        return rack.rack.sleds().get(i).baseboard();
    }

    /** Whether the sled closes a raw connection after {@code bytes} (read returns EOF or a reset). */
    private static boolean closedAfter(byte[] bytes) throws Exception {
        String[] hp = gossip(0).split(":");
        try (Socket s = new Socket(hp[0], Integer.parseInt(hp[1]))) {
            s.setSoTimeout((int) GossipTls.HANDSHAKE_TIMEOUT.plusSeconds(3).toMillis());
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            long deadline = System.nanoTime() + GossipTls.HANDSHAKE_TIMEOUT.plusSeconds(3).toNanos();
            while (System.nanoTime() < deadline) {
                int n;
                try {
                    n = in.read(buf);
                } catch (SocketTimeoutException e) {
                    return false;
                } catch (java.io.IOException e) {
                    return true; // reset
                }
                if (n < 0) {
                    return true;
                }
                // A TLS alert may come first; then the close.
            }
            return false;
        }
    }

    /** Dials sled 0 as a sled presenting {@code tls}; true if the link breaks before any byte arrives. */
    private static boolean refused(GossipTls tls) throws Exception {
        return refused(tls, 0);
    }

    private static boolean refused(GossipTls tls, int sled) throws Exception {
        TcpTransport t = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(tls));
        try {
            Link link;
            try {
                link = t.dial(gossip(sled)).block(Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                return true; // the handshake failed while connecting
            }
            link.send(new byte[] {0, 0, 0, 1, 0});
            try {
                link.receive().blockLast(Duration.ofSeconds(10));
                return !link.isOpen();
            } catch (RuntimeException e) {
                return true;
            }
        } finally {
            t.close();
        }
    }

    private static GossipTls tlsFor(RackCa ca, String name, Path where, Instant notBefore, Duration validity)
            throws Exception {
        ca.issue(name, where, notBefore, validity);
        return GossipTls.load(dir.resolve(RackCa.CA_CERT), where.resolve(RackCa.SLED_CERT),
                where.resolve(RackCa.SLED_KEY), Optional.empty());
    }

    private static void assertServing() throws Exception {
        rack.converge();
        for (int i = 0; i < 2; i++) {
            assertEquals(200, rack.client(i).raw("GET", "/version", new byte[0], Map.of()).statusCode());
        }
    }

    @Test
    void aPlainTcpClientAndGarbageAreRefusedOnTheirOneConnection() throws Exception {
        // What a plain gossip peer sends first: a frame header and a PREAMBLE-ish body.
        assertTrue(closedAfter(new byte[] {0, 0, 0, 12, 1, 'x', 'y', 'z', 0, 0, 0, 0, 0, 0, 0, 0}));
        byte[] garbage = new byte[2048];
        new SecureRandom().nextBytes(garbage);
        assertTrue(closedAfter(garbage));
        // Nothing at all: the handshake deadline closes it.
        assertTrue(closedAfter(new byte[0]));
        assertServing();
    }

    @Test
    void certificatesFromAnotherCaOrExpiredAreRefusedAtTheHandshake() throws Exception {
        long before = rack.daemons.get(0).refusedHandshakes();
        Path other = Files.createDirectories(dir.resolve("other-ca"));
        RackCa stranger = RackCa.create(other, "stranger", new SecureRandom());
        stranger.issue(board(1), other.resolve("sled"));
        GossipTls foreign = GossipTls.load(other.resolve(RackCa.CA_CERT), other.resolve("sled").resolve(RackCa.SLED_CERT),
                other.resolve("sled").resolve(RackCa.SLED_KEY), Optional.empty());
        assertTrue(refused(foreign), "a certificate of another CA naming a rack sled");
        RackCa ours = RackCa.load(dir, new SecureRandom());
        GossipTls expired = tlsFor(ours, board(1), dir.resolve("expired"), Instant.now().minus(Duration.ofDays(30)),
                Duration.ofDays(1));
        assertTrue(refused(expired), "an expired certificate of the rack CA");
        // (The foreign client refuses the sled's certificate first; the expired one reaches the sled's check.)
        assertTrue(rack.daemons.get(0).refusedHandshakes() >= before + 1,
                "refusals counted: " + rack.daemons.get(0).refusedHandshakes());
        assertServing();
    }

    /**
     * Issue 36, item 3: {@code rack revoke BASEBOARD} revokes every certificate issued to it up
     * to then, the one issued earlier (kept elsewhere) as well as the one in the sled's folder;
     * a certificate issued afterwards is accepted. Before, only the folder's serial was revoked
     * and the earlier certificate still joined.
     */
    @Test
    void revokingABaseboardRefusesEveryCertificateIssuedToItUpToThenAndNoLaterOne() throws Exception {
        RackCa ours = RackCa.load(dir, new SecureRandom());
        String spare = "913-0000019:SPARE";
        Instant from = Instant.now().minus(Duration.ofMinutes(5));
        GossipTls earlier = tlsFor(ours, spare, dir.resolve("spare-earlier"), from, Duration.ofDays(1));
        GossipTls folder = tlsFor(ours, spare, dir.resolve("spare-folder"), from, Duration.ofDays(1));
        long revokedUpTo = RackCa.revokeSled(dir, spare);
        assertEquals(GossipTls.generation(sush.gossip.net.GossipTls.readCertificate(dir.resolve("spare-folder")
                .resolve(RackCa.SLED_CERT))), revokedUpTo, "up to the last one issued");
        rack.daemons.get(0).reloadRevocations();
        for (GossipTls t : new GossipTls[] {earlier, folder}) {
            long before = rack.daemons.get(0).refusedHandshakes();
            refused(t);
            assertTrue(rack.daemons.get(0).refusedHandshakes() > before, "a revoked generation was refused");
        }
        GossipTls reissued = tlsFor(ours, spare, dir.resolve("spare-new"), from, Duration.ofDays(1));
        long before = rack.daemons.get(0).refusedHandshakes();
        refused(reissued);
        assertEquals(before, rack.daemons.get(0).refusedHandshakes(), "the certificate issued after the revocation");
        assertServing();
    }

    @Test
    void aValidCertificateClaimingAnotherSledsNameIsRefused() throws Exception {
        long before = rack.daemons.get(1).impostors();
        RackCa ours = RackCa.load(dir, new SecureRandom());
        // A machine with a genuine rack certificate of its own (a sled outside this peer set),
        // which says in its PREAMBLE that it is sled 0 and dials sled 1 (the lower name dials).
        GossipTls intruder = tlsFor(ours, "913-0000019:INTRUDER", dir.resolve("intruder"),
                Instant.now().minus(Duration.ofMinutes(5)), Duration.ofDays(1));
        TcpTransport t = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(intruder));
        GossipNode impostor = new GossipNode(GossipConfig.defaults(gossip(0)), t, Schedulers.parallel(),
                Entropy.secure());
        try {
            impostor.start().block(Duration.ofSeconds(10));
            impostor.setPeers(Map.of(gossip(1), gossip(1)), Map.of(gossip(1), board(1)));
            await("sled 1 refused the impostor").atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).until(() -> rack.daemons.get(1).impostors() > before);
            // What a session would bring, had the link been admitted: the impostor redials only once
            // its link is gone, and its redial is refused again.
            await("the impostor's redial refused").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20)).until(() -> rack.daemons.get(1).impostors() > before + 1);
            assertEquals(0, impostor.replica().readFrom(0, Integer.MAX_VALUE).size(),
                    "the impostor learnt nothing of the rack's messages");
            assertTrue(rack.daemons.get(1).impostors() > before, "sled 1 refused the name the link did not prove");
        } finally {
            impostor.stop();
        }
        assertServing();
    }

    @Test
    void aSledCertificateMustNameTheSledItRuns() throws Exception {
        RackFile.SledEntry s = rack.rack.sleds().get(1);
        sush.ops.daemon.Daemon.Settings mine = rack.rack.settings(s, Optional.empty());
        java.util.List<Path> m2 = java.util.List.of(Files.createDirectories(dir.resolve("x/a")),
                Files.createDirectories(dir.resolve("x/b")));
        sush.ops.daemon.Daemon.Settings swapped = new sush.ops.daemon.Daemon.Settings(board(0), s.cubby(), "127.0.0.1:0",
                "127.0.0.1:0", m2, dir.resolve("x/out"), mine.trust(), Optional.empty(), Map.of(), mine.tls(), Map.of(),
                mine.operators(), mine.ordering());
        sush.ops.daemon.Daemon.DaemonException e = org.junit.jupiter.api.Assertions.assertThrows(
                sush.ops.daemon.Daemon.DaemonException.class, () -> sush.ops.daemon.Daemon.start(swapped));
        assertTrue(e.getMessage().contains("names sled " + board(1)), e.getMessage());
    }
}
