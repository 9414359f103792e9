package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.wire.WireWriter;

/**
 * One side of a session fed frame by frame: at every step a frame of another type, or one
 * with a byte past its end, fails the session with a typed error and leaves the replica as it was.
 */
class SessionStepsTest {
    private static final byte[] PEER = "peer".getBytes(StandardCharsets.UTF_8);
    private static final NetworkId NET = NetworkId.random(Entropy.seeded(60));

    private static byte[] body(byte[] frame) {
        return ScriptedLink.body(frame);
    }

    /** A frame body with one byte more than its fields. */
    private static byte[] longer(byte[] frame) {
        byte[] b = body(frame);
        return Arrays.copyOf(b, b.length + 1);
    }

    /** A frame body that is only its type. */
    private static byte[] bare(int type) {
        return new byte[] {(byte) type};
    }

    private static void assertFails(SyncException.Kind kind, SyncSession s, byte[] body) {
        SyncException e = assertThrows(SyncException.class, () -> s.onFrame(body));
        assertEquals(kind, e.kind(), e::getMessage);
        assertFalse(s.isDone());
    }

    // The provider's side: PREAMBLE and FRONTIER of a newcomer, then its CLAIM, then its COMMIT.

    private static SyncSession providerAwaitingClaim(Replica provider) throws SyncException {
        SyncSession s = new SyncSession(provider, SyncSession.Intent.GOSSIP, "p".getBytes(StandardCharsets.UTF_8));
        s.start();
        assertEquals(List.of(), s.onFrame(body(Frames.preamble(NetworkId.BOOTSTRAPPING, SyncSession.Intent.BOOTSTRAP,
                0, PEER))));
        assertEquals(List.of(), s.onFrame(body(Frames.frontier(Version.ZERO))));
        return s;
    }

    @Test
    void theProviderForksOnlyOnAClaimThatIsExactlyAClaim() throws Exception {
        Replica provider = Replica.seed(NET);
        provider.send(new byte[] {1});
        assertFails(SyncException.Kind.UNEXPECTED_FRAME, providerAwaitingClaim(provider), bare(Frames.COMMIT));
        assertFails(SyncException.Kind.MALFORMED_FRAME, providerAwaitingClaim(provider), longer(Frames.claim()));
        assertEquals(Id.ONE, provider.identity(), "nothing was forked");

        SyncSession s = providerAwaitingClaim(provider);
        List<Integer> types = new ArrayList<>();
        for (byte[] f : s.onFrame(body(Frames.claim()))) {
            types.add(body(f)[0] & 0xFF);
        }
        assertEquals(List.of(Frames.GRANT, Frames.MESSAGES, Frames.END, Frames.COMMIT), types);
        assertFalse(provider.identity().isOne(), "the claim forked the provider");
    }

    @Test
    void theProviderFinishesOnlyOnACommitThatIsExactlyACommit() throws Exception {
        Replica provider = Replica.seed(NET);
        SyncSession wrongType = providerAwaitingClaim(provider);
        wrongType.onFrame(body(Frames.claim()));
        assertFails(SyncException.Kind.UNEXPECTED_FRAME, wrongType, bare(Frames.CLAIM));

        SyncSession trailing = providerAwaitingClaim(provider);
        trailing.onFrame(body(Frames.claim()));
        assertFails(SyncException.Kind.MALFORMED_FRAME, trailing, longer(Frames.commit()));

        SyncSession ok = providerAwaitingClaim(provider);
        ok.onFrame(body(Frames.claim()));
        assertEquals(List.of(), ok.onFrame(body(Frames.commit())));
        assertTrue(ok.isDone());
        assertEquals(SyncSession.Role.PROVIDER, ok.outcome().role());
        SyncException after = assertThrows(SyncException.class, () -> ok.onFrame(body(Frames.commit())));
        assertEquals(SyncException.Kind.UNEXPECTED_FRAME, after.kind());
    }

    // The newcomer's side: the provider's PREAMBLE and FRONTIER, then GRANT, supply and END.

    private static final Version GRANTED = Version.ZERO.tick(Id.ONE);
    private static final byte[] GRANT = Frames.grant(new Replica.Grant(NET, Id.ONE.fork()[1], GRANTED, List.of()));

    private static SyncSession newcomerAwaitingGrant(Replica newcomer) throws SyncException {
        SyncSession s = new SyncSession(newcomer, SyncSession.Intent.BOOTSTRAP, "n".getBytes(StandardCharsets.UTF_8));
        s.start();
        List<byte[]> claim = s.onFrame(body(Frames.preamble(NET, SyncSession.Intent.GOSSIP, 1, PEER)));
        assertEquals(1, claim.size());
        assertEquals(List.of(), s.onFrame(body(Frames.frontier(GRANTED))));
        return s;
    }

    private static SyncSession newcomerAwaitingSupply(Replica newcomer) throws SyncException {
        SyncSession s = newcomerAwaitingGrant(newcomer);
        assertEquals(List.of(), s.onFrame(body(GRANT)));
        return s;
    }

    private static List<byte[]> supplyOfTheGrant() {
        return Frames.supply(List.of(new Message(GRANTED, new byte[] {5})));
    }

    @Test
    void aNewcomerTakesOnlyAGrantThatIsExactlyAGrant() throws Exception {
        Replica newcomer = Replica.newcomer();
        assertFails(SyncException.Kind.UNEXPECTED_FRAME, newcomerAwaitingGrant(newcomer), body(supplyOfTheGrant().get(0)));
        assertFails(SyncException.Kind.MALFORMED_FRAME, newcomerAwaitingGrant(newcomer), longer(GRANT));
        assertTrue(newcomer.network().isBootstrapping());
    }

    @Test
    void aNewcomerTakesOnlyASupplyAndEndThatAreExactlyThat() throws Exception {
        Replica newcomer = Replica.newcomer();
        List<byte[]> supply = supplyOfTheGrant();
        assertFails(SyncException.Kind.UNEXPECTED_FRAME, newcomerAwaitingSupply(newcomer), bare(Frames.COMMIT));
        assertFails(SyncException.Kind.MALFORMED_FRAME, newcomerAwaitingSupply(newcomer), longer(supply.get(0)));

        SyncSession endTrailing = newcomerAwaitingSupply(newcomer);
        endTrailing.onFrame(body(supply.get(0)));
        assertFails(SyncException.Kind.MALFORMED_FRAME, endTrailing, longer(supply.get(1)));
        assertTrue(newcomer.network().isBootstrapping(), "nothing adopted");
        assertEquals(0, newcomer.size());

        SyncSession ok = newcomerAwaitingSupply(newcomer);
        ok.onFrame(body(supply.get(0)));
        assertEquals(List.of(Frames.COMMIT), ok.onFrame(body(supply.get(1))).stream().map(f -> body(f)[0] & 0xFF).toList());
        assertEquals(NET, newcomer.network());
        assertEquals(1, newcomer.size());
    }

    @Test
    void aPeerTakesOnlyAFrontierAfterThePreamble() throws Exception {
        Replica r = Replica.seed(NET);
        r.send(new byte[] {1});
        SyncSession s = new SyncSession(r, SyncSession.Intent.GOSSIP, "a".getBytes(StandardCharsets.UTF_8));
        s.start();
        s.onFrame(body(Frames.preamble(NET, SyncSession.Intent.GOSSIP, 1, PEER)));
        WireWriter end = new WireWriter().writeByte(Frames.END).writeBytes(r.frontier().toBytes());
        assertFails(SyncException.Kind.UNEXPECTED_FRAME, s, end.toByteArray());
    }

    @Test
    void aPeerRefusesASupplyOfAMessageItHolds() throws Exception {
        Rack rack = Rack.of(2, 61);
        rack.send(0, "shared");
        assertEquals(null, rack.sync(0, 1).error());
        rack.send(0, "new");
        Replica liar = rack.replicas.get(0);
        Replica victim = rack.replicas.get(1);
        Version before = victim.frontier();
        SyncSession s = new SyncSession(victim, SyncSession.Intent.GOSSIP, "v".getBytes(StandardCharsets.UTF_8));
        s.start();
        s.onFrame(body(Frames.preamble(liar.network(), SyncSession.Intent.GOSSIP, 1, PEER)));
        s.onFrame(body(Frames.frontier(liar.frontier())));
        List<Message> everything = new ArrayList<>();
        for (var d : liar.readFrom(0, 10)) {
            everything.add(new Message(d.version(), d.payload()));
        }
        assertEquals(2, everything.size());
        assertFails(SyncException.Kind.INCONSISTENT_SUPPLY, s, body(Frames.supply(everything).get(0)));
        assertEquals(before, victim.frontier());
        assertEquals(1, victim.size());
    }

    @Test
    void aSenderNameUpToTheBoundIsAccepted() {
        new SyncSession(Replica.newcomer(), SyncSession.Intent.BOOTSTRAP, new byte[Frames.MAX_SENDER_BYTES]);
        assertThrows(IllegalArgumentException.class,
                () -> new SyncSession(Replica.newcomer(), SyncSession.Intent.BOOTSTRAP, new byte[Frames.MAX_SENDER_BYTES + 1]));
    }
}
