package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;
import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.wire.WireWriter;

class SyncSessionTest {
    private static final byte[] SENDER = "test".getBytes(StandardCharsets.UTF_8);

    @Test
    void equalFrontiersEndAtOnceWithoutSupply() {
        Rack rack = Rack.of(2, 1);
        rack.send(0, "x");
        assertNull(rack.sync(0, 1).error());
        MemoryLink[] links = MemoryLink.pair();
        Rack.Outcomes o = Rack.sync(rack.replicas.get(0), SyncSession.Intent.GOSSIP, rack.replicas.get(1),
                SyncSession.Intent.GOSSIP, links);
        assertEquals(SyncSession.Role.IN_SYNC, o.leftOutcome().role());
        assertEquals(SyncSession.Role.IN_SYNC, o.rightOutcome().role());
        long preambleAndFrontier = links[0].bytesSent();
        assertEquals(preambleAndFrontier, links[1].bytesSent(), "each side sent only its opening");
        assertTrue(preambleAndFrontier < 64, "opening is small: " + preambleAndFrontier);
    }

    @Test
    void eachSideSuppliesExactlyWhatTheOtherLacks() {
        Rack rack = Rack.of(2, 2);
        rack.send(0, "a1");
        rack.send(0, "a2");
        rack.send(1, "b1");
        Rack.Outcomes o = rack.sync(0, 1);
        assertEquals(2, o.leftOutcome().sent());
        assertEquals(1, o.leftOutcome().added());
        assertEquals(1, o.rightOutcome().sent());
        assertEquals(2, o.rightOutcome().added());
        assertEquals(rack.replicas.get(0).frontier(), rack.replicas.get(1).frontier());
    }

    @Test
    void foreignNetworksFailWithBothSidesMinTicksAndOneWinner() {
        Replica a = Replica.seed(NetworkId.random(Entropy.seeded(10)));
        Replica b = Replica.seed(NetworkId.random(Entropy.seeded(11)));
        a.send(new byte[] {1});
        a.send(new byte[] {2});
        b.send(new byte[] {3});
        Rack.Outcomes o = Rack.sync(a, SyncSession.Intent.GOSSIP, b, SyncSession.Intent.GOSSIP, MemoryLink.pair());
        NetworkMismatchException left = assertInstanceOf(NetworkMismatchException.class, o.left());
        NetworkMismatchException right = assertInstanceOf(NetworkMismatchException.class, o.right());
        assertEquals(2, left.localMinTicks());
        assertEquals(1, left.remoteMinTicks());
        assertEquals(a.network(), right.remoteNetwork());
        assertTrue(left.localWins());
        assertTrue(!right.localWins(), "both sides agree who wins");
        assertEquals(2, a.size());
        assertEquals(1, b.size());
    }

    @Test
    void equalMinTicksGoToTheLowerNetworkId() {
        Replica a = Replica.seed(NetworkId.random(Entropy.seeded(20)));
        Replica b = Replica.seed(NetworkId.random(Entropy.seeded(21)));
        Rack.Outcomes o = Rack.sync(a, SyncSession.Intent.GOSSIP, b, SyncSession.Intent.GOSSIP, MemoryLink.pair());
        NetworkMismatchException left = (NetworkMismatchException) o.left();
        NetworkMismatchException right = (NetworkMismatchException) o.right();
        assertNotEquals(left.localWins(), right.localWins());
        assertEquals(a.network().compareTo(b.network()) < 0, left.localWins());
    }

    @Test
    void bootstrapForksTheProviderAndShipsTheWholeSet() {
        Replica provider = Replica.seed(NetworkId.random(Entropy.seeded(3)));
        provider.send(new byte[] {1});
        provider.send(new byte[] {2});
        Replica newcomer = Replica.newcomer();
        Rack.Outcomes o = Rack.sync(provider, SyncSession.Intent.GOSSIP, newcomer, SyncSession.Intent.BOOTSTRAP,
                MemoryLink.pair());
        assertEquals(SyncSession.Role.PROVIDER, o.leftOutcome().role());
        assertEquals(SyncSession.Role.NEWCOMER, o.rightOutcome().role());
        assertEquals(provider.network(), newcomer.network());
        assertEquals(provider.frontier(), newcomer.frontier());
        assertEquals(sush.gossip.clock.Id.ONE, provider.identity().join(newcomer.identity()), "disjoint halves of the whole");
        Version fromNewcomer = newcomer.send(new byte[] {9});
        Version fromProvider = provider.send(new byte[] {8});
        assertTrue(fromNewcomer.concurrentWith(fromProvider));
    }

    @Test
    void aBootstrapClaimantWithHistoryIsRefused() throws Exception {
        Replica provider = Replica.seed(NetworkId.random(Entropy.seeded(4)));
        MemoryLink[] links = MemoryLink.pair();
        WireWriter forged = new WireWriter();
        forged.writeBytes(Frames.preamble(NetworkId.BOOTSTRAPPING, SyncSession.Intent.BOOTSTRAP, 1, SENDER));
        forged.writeBytes(Frames.frontier(Version.ZERO.tick(sush.gossip.clock.Id.ONE)));
        Mono<SyncOutcome> run = SyncDriver.run(provider, links[0], SyncSession.Intent.GOSSIP, SENDER);
        links[1].send(forged.toByteArray());
        StepVerifier.create(run).expectErrorSatisfies(e -> assertEquals(SyncException.Kind.CLAIMANT_HAS_HISTORY,
                ((SyncException) e).kind())).verify(Duration.ofSeconds(5));
        assertEquals(sush.gossip.clock.Id.ONE, provider.identity(), "no identity was given away");
    }

    @Test
    void twoNewcomersBailCleanly() {
        Replica a = Replica.newcomer();
        Replica b = Replica.newcomer();
        Rack.Outcomes o = Rack.sync(a, SyncSession.Intent.BOOTSTRAP, b, SyncSession.Intent.BOOTSTRAP, MemoryLink.pair());
        assertEquals(SyncException.Kind.BOTH_BOOTSTRAPPING, ((SyncException) o.left()).kind());
        assertEquals(SyncException.Kind.BOTH_BOOTSTRAPPING, ((SyncException) o.right()).kind());
        assertTrue(a.network().isBootstrapping() && b.network().isBootstrapping());
    }

    @Test
    void garbageEndsTheSessionWithATypedErrorAndNoChange() {
        assertRawPeerFails(new byte[] {0, 0, 0, 3, 1, 2, 3}, SyncException.Kind.MALFORMED_FRAME);
        assertRawPeerFails(new byte[] {0, 0, 0, 12, 1, 'N', 'O', 'T', 'S', 'U', 'S', 'H', '!', 1, 0, 0},
                SyncException.Kind.UNSUPPORTED_PROTOCOL);
        assertRawPeerFails(new byte[] {0, 0x7F, 0, 0, 1}, SyncException.Kind.FRAME_TOO_LARGE);
        assertRawPeerFails(new byte[] {0, 0, 0, 0}, SyncException.Kind.MALFORMED_FRAME);
        assertRawPeerFails(Frames.commit(), SyncException.Kind.UNEXPECTED_FRAME);
    }

    @Test
    void aLinkCutInsideAFrameFailsTheSession() {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(5)));
        MemoryLink[] links = MemoryLink.pair();
        links[1].cutAfter(3);
        Mono<SyncOutcome> run = SyncDriver.run(r, links[0], SyncSession.Intent.GOSSIP, SENDER);
        links[1].send(new byte[] {0, 0, 0, 9, 1});
        StepVerifier.create(run).expectErrorSatisfies(e -> assertEquals(SyncException.Kind.LINK_BROKEN,
                ((SyncException) e).kind())).verify(Duration.ofSeconds(5));
    }

    @Test
    void aSupplyAboveThePeersFrontierIsRefusedAndNothingChanges() {
        Rack rack = Rack.of(2, 6);
        Replica victim = rack.replicas.get(0);
        Replica liar = rack.replicas.get(1);
        Version honest = victim.frontier();
        MemoryLink[] links = MemoryLink.pair();
        Mono<SyncOutcome> run = SyncDriver.run(victim, links[0], SyncSession.Intent.GOSSIP, SENDER);
        Version forgedVersion = liar.frontier().tick(liar.identity());
        List<sush.gossip.set.Message> forged = new ArrayList<>(List.of(new sush.gossip.set.Message(forgedVersion, new byte[] {1})));
        WireWriter w = new WireWriter();
        w.writeBytes(Frames.preamble(liar.network(), SyncSession.Intent.GOSSIP, 0, SENDER));
        w.writeBytes(Frames.frontier(liar.frontier().join(victim.frontier().tick(victim.identity()))));
        for (byte[] f : Frames.supply(forged)) {
            w.writeBytes(f);
        }
        links[1].send(w.toByteArray());
        StepVerifier.create(run).expectErrorSatisfies(e -> assertEquals(SyncException.Kind.INCONSISTENT_SUPPLY,
                ((SyncException) e).kind())).verify(Duration.ofSeconds(5));
        assertEquals(honest, victim.frontier());
        assertEquals(0, victim.size());
    }

    @Test
    void delayedLinksDeliverInOrderUnderVirtualTime() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        Rack rack = Rack.of(2, 7);
        rack.send(0, "late");
        MemoryLink[] links = MemoryLink.pair(Duration.ofMillis(100), time);
        Mono<SyncOutcome> a = SyncDriver.run(rack.replicas.get(0), links[0], SyncSession.Intent.GOSSIP, SENDER);
        Mono<SyncOutcome> b = SyncDriver.run(rack.replicas.get(1), links[1], SyncSession.Intent.GOSSIP, SENDER);
        StepVerifier.withVirtualTime(() -> Mono.zip(a, b), () -> time, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(299))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(t -> assertEquals(1, t.getT2().added()))
                .verifyComplete();
    }

    private static void assertRawPeerFails(byte[] bytes, SyncException.Kind kind) {
        Replica r = Replica.seed(NetworkId.random(Entropy.seeded(8)));
        r.send(new byte[] {1});
        Version before = r.frontier();
        MemoryLink[] links = MemoryLink.pair();
        Mono<SyncOutcome> run = SyncDriver.run(r, links[0], SyncSession.Intent.GOSSIP, SENDER);
        links[1].send(bytes);
        StepVerifier.create(run).expectErrorSatisfies(e -> assertEquals(kind, ((SyncException) e).kind(),
                () -> e.toString())).verify(Duration.ofSeconds(5));
        assertTrue(!links[0].isOpen(), "the link is poisoned");
        assertEquals(before, r.frontier());
        assertEquals(1, r.size());
    }

    @Test
    void aNewcomerThatRefusesTheProvidersUniverseCostsItNothing() {
        Replica provider = Replica.seed(NetworkId.random(Entropy.seeded(30)));
        Replica newcomer = Replica.newcomer();
        NetworkId better = provider.network().compareTo(NetworkId.random(Entropy.seeded(31))) < 0
                ? NetworkId.random(Entropy.seeded(32)) : NetworkId.random(Entropy.seeded(31));
        SyncSession.UniverseFloor floor = new SyncSession.UniverseFloor(better, 5);
        MemoryLink[] links = MemoryLink.pair();
        Mono<SyncOutcome> p = SyncDriver.run(provider, links[0], SyncSession.Intent.GOSSIP, SENDER);
        Mono<SyncOutcome> n = SyncDriver.run(new SyncSession(newcomer, SyncSession.Intent.BOOTSTRAP, SENDER, floor,
                () -> true), links[1]);
        java.util.concurrent.atomic.AtomicReference<Throwable> providerError = new java.util.concurrent.atomic.AtomicReference<>();
        p.subscribe(o -> { }, providerError::set);
        StepVerifier.create(n).expectErrorSatisfies(e -> assertEquals(SyncException.Kind.INFERIOR_UNIVERSE,
                ((SyncException) e).kind())).verify(Duration.ofSeconds(5));
        assertTrue(providerError.get() instanceof SyncException, "the provider's side failed too");
        assertEquals(sush.gossip.clock.Id.ONE, provider.identity(), "the provider forked nothing");
    }

    @Test
    void aNewcomerAlreadyBootstrappingElsewhereClaimsNothing() {
        Replica provider = Replica.seed(NetworkId.random(Entropy.seeded(33)));
        MemoryLink[] links = MemoryLink.pair();
        Mono<SyncOutcome> p = SyncDriver.run(provider, links[0], SyncSession.Intent.GOSSIP, SENDER);
        Mono<SyncOutcome> n = SyncDriver.run(new SyncSession(Replica.newcomer(), SyncSession.Intent.BOOTSTRAP, SENDER,
                null, () -> false), links[1]);
        java.util.concurrent.atomic.AtomicReference<Throwable> providerError = new java.util.concurrent.atomic.AtomicReference<>();
        p.subscribe(o -> { }, providerError::set);
        StepVerifier.create(n).expectErrorSatisfies(e -> assertEquals(SyncException.Kind.BOOTSTRAP_BUSY,
                ((SyncException) e).kind())).verify(Duration.ofSeconds(5));
        assertTrue(providerError.get() instanceof SyncException, "the provider's side failed too");
        assertEquals(sush.gossip.clock.Id.ONE, provider.identity());
    }
}
