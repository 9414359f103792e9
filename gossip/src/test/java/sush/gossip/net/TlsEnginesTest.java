package sush.gossip.net;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.handler.ssl.SslProvider;
import sush.gossip.link.Link;

/**
 * Gossip TLS runs on BoringSSL where it loads and on the JDK's engine otherwise (D-023): both
 * must prove the peer's sled name and refuse a certificate from another CA.
 */
class TlsEnginesTest {
    @TempDir
    Path dir;

    @AfterEach
    void engineBack() {
        System.clearProperty(GossipTls.JDK_ONLY);
    }

    @Test
    void boringSslIsWhatShipsOnLinuxX8664() {
        // The rack benchmark's TLS cold boot figure is BoringSSL's; a build that silently lost
        // the native library would fall back to the JDK and miss it.
        if ("amd64".equals(System.getProperty("os.arch")) && System.getProperty("os.name").startsWith("Linux")) {
            assertEquals(SslProvider.OPENSSL, GossipTls.provider(), "netty-tcnative did not load");
        }
        System.setProperty(GossipTls.JDK_ONLY, "true");
        assertEquals(SslProvider.JDK, GossipTls.provider());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void theListenerLearnsTheDialersSledNameAndRefusesAnotherCa(boolean jdk) throws Exception {
        if (jdk) {
            System.setProperty(GossipTls.JDK_ONLY, "true");
        }
        RackCa ca = RackCa.create(dir.resolve("ca"), "rack", new SecureRandom());
        RackCa other = RackCa.create(dir.resolve("other"), "other", new SecureRandom());
        GossipTls server = sled(ca, "ca", "BRM-1");
        GossipTls client = sled(ca, "ca", "BRM-2");
        GossipTls stranger = sled(other, "other", "BRM-3");

        BlockingQueue<Link> accepted = new LinkedBlockingQueue<>();
        BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        TcpTransport listener = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(server));
        TcpTransport dialer = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(client));
        TcpTransport intruder = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(stranger));
        try {
            listener.listen(l -> {
                accepted.add(l);
                l.receive().subscribe(received::add, e -> { });
            }).block(Duration.ofSeconds(5));

            Link out = dialer.dial(listener.localAddress()).block(Duration.ofSeconds(5));
            out.send(new byte[] {7, 8});
            assertArrayEquals(new byte[] {7, 8}, received.poll(5, TimeUnit.SECONDS));
            Link in = accepted.poll(5, TimeUnit.SECONDS);
            assertEquals(Optional.of("BRM-2"), in.peerIdentity());
            assertEquals(Optional.of("BRM-1"), out.peerIdentity());

            long refusalsBefore = server.refusals();
            try {
                Link bad = intruder.dial(listener.localAddress()).block(Duration.ofSeconds(5));
                if (bad != null) {
                    bad.send(new byte[] {9});
                }
            } catch (RuntimeException expected) {
                // refused during the handshake, on either side
            }
            await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                    .untilAsserted(() -> assertTrue(server.refusals() > refusalsBefore || stranger.refusals() > 0,
                            "neither side's trust refused the other CA"));
            assertNull(received.poll(200, TimeUnit.MILLISECONDS), "a byte from another CA's sled arrived");
            Link refused = accepted.poll();
            if (refused != null) {
                assertEquals(Optional.empty(), refused.peerIdentity());
            }
        } finally {
            intruder.close();
            dialer.close();
            listener.close();
        }
    }

    private GossipTls sled(RackCa ca, String caDir, String name) throws Exception {
        Path d = dir.resolve(caDir + "-" + name);
        ca.issue(name, d);
        return GossipTls.load(dir.resolve(caDir).resolve(RackCa.CA_CERT), d.resolve(RackCa.SLED_CERT),
                d.resolve(RackCa.SLED_KEY), Optional.empty());
    }
}
