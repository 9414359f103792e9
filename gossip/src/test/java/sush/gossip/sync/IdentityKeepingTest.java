package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.Bookmark;
import sush.gossip.set.Bookmarks;
import sush.gossip.set.IdentityKeeper;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.set.ReplicaException;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;

/**
 * Identity over a long life (bounded-gossip.md section 4, D-053): a restarted replica takes its
 * identity back from its bookmark when the provider has seen its last send, and forks a fresh
 * share otherwise; versions then stay bounded by the replicas, not by their restarts.
 */
class IdentityKeepingTest {
    private static final NetworkId NET = NetworkId.random(Entropy.seeded(39));

    private static Replica bootstrap(Replica provider, Replica newcomer) {
        Rack.Outcomes o = Rack.sync(provider, SyncSession.Intent.GOSSIP, newcomer, SyncSession.Intent.BOOTSTRAP,
                MemoryLink.pair());
        assertNull(o.error(), () -> "bootstrap: " + o.error());
        return newcomer;
    }

    private static void sync(Replica a, Replica b) {
        Rack.Outcomes o = Rack.sync(a, SyncSession.Intent.GOSSIP, b, SyncSession.Intent.GOSSIP, MemoryLink.pair());
        assertNull(o.error(), () -> "sync: " + o.error());
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRestartWhoseSendsTheProviderSawTakesItsIdentityBack() {
        Bookmarks kept = new Bookmarks();
        Replica a = Replica.seed(NET);
        Replica b = bootstrap(a, Replica.newcomer(kept));
        Id bIdentity = b.identity();
        Version last = b.send(text("one"));
        sync(a, b);
        assertEquals(Optional.of(new Bookmark(NET, bIdentity, last)), kept.find(NET), "each send is kept");
        Id aIdentity = a.identity();

        assertFalse(b.resumed(), "a first life forks");
        Replica again = bootstrap(a, Replica.newcomer(kept));
        assertEquals(bIdentity, again.identity(), "the same identity, from the bookmark");
        assertTrue(again.resumed());
        assertEquals(aIdentity, a.identity(), "the provider forked nothing");
        Version next = again.send(text("two"));
        assertTrue(last.lessThan(next), "the new life's send follows the old life's last");
        assertTrue(again.contains(last), "and it holds the old life's message");
    }

    @Test
    void aRestartWhoseLastSendTheProviderNeverSawForksAFreshShare() {
        Bookmarks kept = new Bookmarks();
        Replica a = Replica.seed(NET);
        Replica c = bootstrap(a, Replica.newcomer());
        Replica b = bootstrap(a, Replica.newcomer(kept));
        Id bIdentity = b.identity();
        Version lost = b.send(text("only c saw this"));
        sync(b, c);
        Id aIdentity = a.identity();

        Replica again = bootstrap(a, Replica.newcomer(kept));
        assertNotEquals(bIdentity, again.identity(), "a fork: a's frontier does not cover the last send");
        assertFalse(again.resumed());
        assertNotEquals(aIdentity, a.identity(), "the provider gave half of its own");
        assertEquals(again.identity(), kept.find(NET).orElseThrow().identity(), "the new share is kept");
        Version next = again.send(text("new life"));
        assertFalse(next.equals(lost), "no version names two messages");
        sync(again, c);
        assertTrue(again.contains(lost), "the old life's message, held by c, still reaches the restarted sled");
    }

    @Test
    void aClaimOfAnIdentityThatOverlapsTheProvidersIsAFork() {
        Replica a = Replica.seed(NET);
        a.send(text("x"));
        Replica.Grant g = a.grant(Optional.of(new Bookmark(NET, Id.ONE, Version.ZERO)));
        assertFalse(g.identity().isZero(), "a's own identity is never given away as a newcomer's");
        Replica.Grant other = a.grant(Optional.of(new Bookmark(NetworkId.random(Entropy.seeded(40)),
                Id.ONE.fork()[1], Version.ZERO)));
        assertFalse(other.identity().isZero(), "a bookmark of another universe is a fork");
    }

    @Test
    void theProvidersOwnHalfIsKeptBeforeTheOtherLeaves() {
        Bookmarks kept = new Bookmarks();
        Replica a = Replica.seed(NET, kept);
        assertEquals(Optional.of(new Bookmark(NET, Id.ONE, Version.ZERO)), kept.find(NET), "a seed keeps its identity");
        Version v = a.send(text("x"));
        Replica.Grant g = a.grant();
        assertEquals(Optional.of(new Bookmark(NET, a.identity(), v)), kept.find(NET));
        assertEquals(Id.ONE, a.identity().join(g.identity()), "the halves make the whole");
    }

    @Test
    void aKeeperThatCannotKeepRefusesTheSendAndChangesNothing() {
        boolean[] broken = {false};
        IdentityKeeper keeper = new IdentityKeeper() {
            @Override
            public void keep(Bookmark b) {
                if (broken[0]) {
                    throw new ReplicaException(ReplicaException.Kind.IDENTITY_NOT_KEPT, "disk gone");
                }
            }

            @Override
            public Optional<Bookmark> find(NetworkId network) {
                return Optional.empty();
            }
        };
        Replica a = Replica.seed(NET, keeper);
        a.send(text("x"));
        Version frontier = a.frontier();
        long log = a.view().logSize();
        broken[0] = true;
        ReplicaException e = assertThrows(ReplicaException.class, () -> a.send(text("y")));
        assertEquals(ReplicaException.Kind.IDENTITY_NOT_KEPT, e.kind());
        assertEquals(frontier, a.frontier());
        assertEquals(log, a.view().logSize());
        ReplicaException g = assertThrows(ReplicaException.class, a::grant);
        assertEquals(ReplicaException.Kind.IDENTITY_NOT_KEPT, g.kind());
        assertEquals(Id.ONE, a.identity(), "nothing forked");
    }

    @Test
    void aClaimCarriesTheBookmarkAndAPlainClaimIsOneByte() throws Exception {
        assertArrayEquals(new byte[] {Frames.CLAIM}, ScriptedLink.body(Frames.claim()));
        Bookmark b = new Bookmark(NET, Id.ONE.fork()[1], Version.ZERO.tick(Id.ONE));
        byte[] body = ScriptedLink.body(Frames.claim(Optional.of(b)));
        assertEquals(Optional.of(b), Frames.readClaim(new WireReader(body, 1, body.length - 1)));
        byte[] cut = java.util.Arrays.copyOf(body, body.length - 1);
        assertThrows(MalformedException.class, () -> Frames.readClaim(new WireReader(cut, 1, cut.length - 1)));
        byte[] longer = java.util.Arrays.copyOf(body, body.length + 1);
        assertThrows(MalformedException.class, () -> Frames.readClaim(new WireReader(longer, 1, longer.length - 1)),
                "a byte past the bookmark");
    }

    @Test
    void aGrantWithoutAShareIsRefusedByANewcomerThatClaimedNothing() throws Exception {
        Replica newcomer = Replica.newcomer();
        SyncSession s = new SyncSession(newcomer, SyncSession.Intent.BOOTSTRAP, text("n"));
        s.start();
        s.onFrame(ScriptedLink.body(Frames.preamble(NET, SyncSession.Intent.GOSSIP, 1, text("p"))));
        Version f = Version.ZERO.tick(Id.ONE);
        s.onFrame(ScriptedLink.body(Frames.frontier(f)));
        SyncException e = assertThrows(SyncException.class,
                () -> s.onFrame(ScriptedLink.body(Frames.grant(new Replica.Grant(NET, Id.ZERO, f, List.of())))));
        assertEquals(SyncException.Kind.INCONSISTENT_SUPPLY, e.kind());
        assertTrue(newcomer.network().isBootstrapping());
    }

    @Test
    void bookmarksRoundTripAndKeepTheFourNewestUniverses() throws Exception {
        Bookmarks kept = new Bookmarks();
        List<NetworkId> nets = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            NetworkId n = NetworkId.random(Entropy.seeded(100 + i));
            nets.add(n);
            kept.keep(new Bookmark(n, Id.ONE, Version.ZERO.tick(Id.ONE)));
        }
        kept.keep(new Bookmark(nets.get(2), Id.ONE.fork()[0], Version.ZERO));
        assertEquals(Bookmarks.MAX_UNIVERSES, kept.all().size());
        assertEquals(Optional.empty(), kept.find(nets.get(0)));
        assertEquals(Optional.empty(), kept.find(nets.get(1)));
        assertEquals(nets.get(2), kept.all().get(3).network(), "the most recently kept is last");
        assertEquals(kept.all(), Bookmarks.fromBytes(kept.toBytes()).all());
        Bookmarks cleared = Bookmarks.fromBytes(kept.toBytes());
        cleared.clear();
        assertEquals(List.of(), cleared.all(), "a wiped sled keeps nothing");
        assertEquals(Optional.empty(), cleared.find(nets.get(2)));

        byte[] bytes = kept.toBytes();
        byte[] format = bytes.clone();
        format[0] = 2;
        assertThrows(MalformedException.class, () -> Bookmarks.fromBytes(format));
        byte[] trailing = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(MalformedException.class, () -> Bookmarks.fromBytes(trailing));
        Bookmarks twice = new Bookmarks();
        twice.keep(kept.all().get(0));
        byte[] one = twice.toBytes();
        byte[] doubled = new byte[1 + 1 + 2 * (one.length - 2)];
        doubled[0] = 1;
        doubled[1] = 2;
        System.arraycopy(one, 2, doubled, 2, one.length - 2);
        System.arraycopy(one, 2, doubled, one.length, one.length - 2);
        assertThrows(MalformedException.class, () -> Bookmarks.fromBytes(doubled), "two bookmarks of one universe");
    }

    /** The largest frontier of a rack of five over {@code restarts} restarts: after the first 32, and at the end. */
    private static int[] restarts(int restarts, boolean keeping, long seed) {
        Random random = new Random(seed);
        List<Bookmarks> kept = new ArrayList<>();
        Rack rack = Rack.of(5, seed, i -> {
            kept.add(new Bookmarks());
            return keeping ? kept.get(i) : IdentityKeeper.NONE;
        });
        int after32 = 0;
        int last = 0;
        for (int i = 0; i < restarts; i++) {
            for (int k = 0; k < 5; k++) {
                rack.send(k, "m" + i + "@" + k);
            }
            for (int k = 0; k < 10; k++) {
                assertNull(rack.sync(k % 5, (k + 1) % 5).error());
            }
            int k = random.nextInt(5);
            int from = (k + 1 + random.nextInt(4)) % 5;
            Replica again = keeping ? Replica.newcomer(kept.get(k)) : Replica.newcomer();
            Rack.Outcomes o = Rack.sync(rack.replicas.get(from), SyncSession.Intent.GOSSIP, again,
                    SyncSession.Intent.BOOTSTRAP, MemoryLink.pair());
            assertNull(o.error());
            rack.replace(k, again);
            last = 0;
            for (Replica r : rack.replicas) {
                last = Math.max(last, r.frontier().encodedSize());
            }
            if (i == 31) {
                after32 = last;
            }
        }
        return new int[] {after32, last};
    }

    @Test
    void versionsStayBoundedOverRestartsWithBookmarksAndGrowWithout() {
        int[] keeping = restarts(300, true, 7);
        int[] forking = restarts(300, false, 7);
        System.out.printf("largest frontier after 32 and 300 restarts: bookmarks %d -> %d bytes, forks %d -> %d%n",
                keeping[0], keeping[1], forking[0], forking[1]);
        assertTrue(keeping[1] <= 2 * keeping[0], () -> "within 2x with bookmarks: " + keeping[0] + " -> " + keeping[1]);
        assertTrue(forking[1] > 2 * forking[0], () -> "forks grow: " + forking[0] + " -> " + forking[1]);
    }
}
