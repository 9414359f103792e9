package sush.gossip.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

import sush.gossip.net.GossipTls;
import sush.gossip.net.RackCa;
import sush.gossip.net.TcpTransport;

/**
 * {@code ./bench.sh handshakes}: 32 gossip transports with rack certificates dial a full mesh
 * (496 mutual TLS 1.3 handshakes, each link carrying a byte), three rounds in one JVM: what the
 * rack benchmark's TLS cold boot pays in handshakes, first with the crypto code cold, then warm.
 * A real sled makes 31 of them. First with the engine gossip ships (BoringSSL where it loads),
 * then, in the same run, with the JDK's engine (D-023).
 */
public final class HandshakeProbe {
    public static void main(String[] args) throws Exception {
        String engine = GossipTls.provider().toString();
        double[] shipped = rounds(engine);
        System.setProperty(GossipTls.JDK_ONLY, "true");
        double[] jdk = rounds("JDK");
        System.out.printf(java.util.Locale.ROOT, "{\"bench\":\"handshakes\",\"links\":%d,\"engine\":\"%s\",\"cold_ms\":%.0f,"
                + "\"second_ms\":%.0f,\"warm_ms\":%.0f,\"jdk_cold_ms\":%.0f,\"jdk_second_ms\":%.0f,\"jdk_warm_ms\":%.0f,"
                + "\"jdk_over_shipped_warm\":%.2f}%n", 32 * 31 / 2, engine,
                shipped[0], shipped[1], shipped[2], jdk[0], jdk[1], jdk[2], jdk[2] / shipped[2]);
        System.exit(0);
    }

    private static double[] rounds(String engine) throws Exception {
        int n = 32;
        Path d = Files.createTempDirectory("hs");
        RackCa ca = RackCa.create(d, "p", new java.security.SecureRandom());
        List<TcpTransport> ts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ca.issue("s" + i, d.resolve("s" + i));
            GossipTls tls = GossipTls.load(d.resolve(RackCa.CA_CERT), d.resolve("s" + i + "/sled.crt"),
                    d.resolve("s" + i + "/sled.key"), Optional.empty());
            TcpTransport t = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(5), Optional.of(tls));
            t.listen(l -> l.receive().subscribe(x -> { }, e -> { })).block();
            ts.add(t);
        }
        double[] ms = new double[3];
        for (int round = 0; round < 3; round++) {
            CountDownLatch done = new CountDownLatch(n * (n - 1) / 2);
            long t0 = System.nanoTime();
            List<sush.gossip.link.Link> links = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    ts.get(i).dial(ts.get(j).localAddress()).subscribe(l -> {
                        links.add(l);
                        l.send(new byte[] {1});
                        done.countDown();
                    }, e -> {
                        System.out.println("fail " + e);
                        done.countDown();
                    });
                }
            }
            done.await();
            ms[round] = (System.nanoTime() - t0) / 1e6;
            System.out.printf(java.util.Locale.ROOT, "%s round %d: %d links in %.0f ms%n", engine, round, links.size(),
                    ms[round]);
            links.forEach(l -> l.poison("next round"));
            Thread.sleep(500);
        }
        ts.forEach(TcpTransport::close);
        return ms;
    }
}
