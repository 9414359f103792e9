package sush.gossip.set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import reactor.test.StepVerifier;
import sush.gossip.Entropy;
import sush.gossip.clock.Version;

class ReplicaTest {
    @Test
    void sendTicksOverTheWholeFrontier() {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(1)));
        Version first = r.send(new byte[] {1});
        Version second = r.send(new byte[] {2});
        assertTrue(first.lessThan(second));
        assertEquals(second, r.frontier());
    }

    @Test
    void aSubscriberResumesFromItsCheckpointWithoutSkipping() {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(2)));
        for (int i = 0; i < 5; i++) {
            r.send(new byte[] {(byte) i});
        }
        List<Delivery> firstThree = r.deliveries(0).take(3).collectList().block(Duration.ofSeconds(5));
        long checkpoint = firstThree.get(2).checkpoint();
        StepVerifier.create(r.deliveries(checkpoint).map(d -> (int) d.payload()[0]))
                .expectNext(3, 4)
                .then(() -> r.send(new byte[] {5}))
                .expectNext(5)
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void deliveriesRespectDemand() {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(3)));
        for (int i = 0; i < 300; i++) {
            r.send(new byte[] {(byte) i});
        }
        StepVerifier.create(r.deliveries(0), 2)
                .expectNextCount(2)
                .expectNoEvent(Duration.ofMillis(20))
                .thenRequest(298)
                .expectNextCount(298)
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void oversizedPayloadsAndAnonymousSendsAreRefusedWithoutChange() {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(4)));
        ReplicaException big = assertThrows(ReplicaException.class, () -> r.send(new byte[Replica.MAX_PAYLOAD_BYTES + 1]));
        assertEquals(ReplicaException.Kind.PAYLOAD_TOO_LARGE, big.kind());
        assertEquals(0, r.size());
        ReplicaException anonymous = assertThrows(ReplicaException.class, () -> Replica.newcomer().send(new byte[1]));
        assertEquals(ReplicaException.Kind.NO_IDENTITY, anonymous.kind());
        assertTrue(r.send(new byte[Replica.MAX_PAYLOAD_BYTES]) != null, "a payload at the bound is accepted");
    }

    @Test
    void theAllZeroNetworkIsReservedForBootstrapping() {
        assertThrows(IllegalArgumentException.class, () -> Replica.seed(NetworkId.BOOTSTRAPPING));
        assertTrue(Replica.newcomer().network().isBootstrapping());
        assertTrue(!NetworkId.random(b -> java.util.Arrays.fill(b, (byte) (b.length > 0 ? 1 : 0))).isBootstrapping());
    }
}
