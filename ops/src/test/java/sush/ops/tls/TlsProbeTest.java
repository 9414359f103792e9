package sush.ops.tls;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.net.GossipTls;
import sush.gossip.net.TcpTransport;
import sush.ops.daemon.RackCa;

class TlsProbeTest {
    @TempDir
    Path dir;

    @Test
    void probe() throws Exception {
        RackCa ca = RackCa.create(dir, "t", new java.security.SecureRandom());
        ca.issue("a:1", dir.resolve("a"));
        ca.issue("b:1", dir.resolve("b"));
        GossipTls ta = GossipTls.load(dir.resolve("ca.crt"), dir.resolve("a/sled.crt"), dir.resolve("a/sled.key"), Optional.empty());
        GossipTls tb = GossipTls.load(dir.resolve("ca.crt"), dir.resolve("b/sled.crt"), dir.resolve("b/sled.key"), Optional.empty());
        TcpTransport a = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(ta));
        TcpTransport b = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), Optional.of(tb));
        ArrayBlockingQueue<String> got = new ArrayBlockingQueue<>(10);
        a.listen(link -> {
            got.add("accepted " + link.peerIdentity());
            link.receive().subscribe(x -> got.add("read " + new String(x)), e -> got.add("err " + e));
        }).block();
        var l = b.dial(a.localAddress()).doOnError(e -> got.add("dial err " + e)).block(Duration.ofSeconds(5));
        got.add("dialled " + l.peerIdentity());
        l.send("hi".getBytes());
        for (int i = 0; i < 3; i++) {
            System.out.println("PROBE " + got.poll(3, java.util.concurrent.TimeUnit.SECONDS));
        }
        System.out.println("PROBE refusals " + ta.refusals() + " " + ta.lastRefusal() + " / " + tb.refusals() + " " + tb.lastRefusal());
    }
}
