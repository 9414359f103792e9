package sush.gossip.sync;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Bookmark;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.set.ReplicaException;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;

/**
 * One side of one sync session, without I/O: frames in, frames out (D-004).
 *
 * <p>Both sides run the same machine. Each opens with PREAMBLE and FRONTIER; equal frontiers
 * end the session at once. Otherwise each supplies the messages the other lacks (versions not
 * at or below the other's frontier), checks what it received against the peer's frontier,
 * commits by joining atomically, and confirms with COMMIT. A bootstrap replaces the supply
 * with GRANT: the provider forks its identity (or gives a newcomer's claimed identity back,
 * D-053) and ships its whole set. Any exception leaves
 * the replica as it was, except after this side's own commit, which stands.
 */
public final class SyncSession {
    /** What this side wants from the session. */
    public enum Intent {
        /** Exchange what each side lacks, inside one universe. */
        GOSSIP,
        /** Join the peer's universe: take an identity share and its whole set. */
        BOOTSTRAP
    }

    /** What the session did for this side. */
    public enum Role {
        /** Frontiers were equal; nothing moved. */
        IN_SYNC,
        /** Exchanged messages with a peer of the same universe. */
        PEER,
        /** Gave a newcomer an identity share and the set. */
        PROVIDER,
        /** Joined the peer's universe. */
        NEWCOMER
    }

    private enum State { AWAIT_PREAMBLE, AWAIT_FRONTIER, AWAIT_CLAIM, AWAIT_GRANT, AWAIT_SUPPLY, AWAIT_COMMIT, DONE }

    /** The weakest universe a newcomer still accepts a bootstrap from: the one it lost to. */
    public record UniverseFloor(NetworkId network, long minTicks) {
    }

    private final Replica replica;
    private final Intent intent;
    private final byte[] sender;
    private final UniverseFloor floor;
    private final BooleanSupplier claimGate;
    private State state = State.AWAIT_PREAMBLE;
    private Role role;
    private Replica.View view;
    private Frames.Preamble remote;
    private Version remoteFrontier;
    private Replica.Grant grant;
    /** The bookmark a newcomer claimed its earlier identity back with (D-053), if any. */
    private Optional<Bookmark> claimed = Optional.empty();
    private Version supplyBound;
    private final List<Message> received = new ArrayList<>();
    private final Set<Version> receivedVersions = new HashSet<>();
    private int sent;
    private int added;

    public SyncSession(Replica replica, Intent intent, byte[] sender) {
        this(replica, intent, sender, null, () -> true);
    }

    /**
     * A session whose newcomer side refuses providers from universes that lose to {@code floor},
     * and claims a provider only if {@code claimGate} allows (one bootstrap at a time per sled:
     * every claim costs the provider half its identity).
     */
    public SyncSession(Replica replica, Intent intent, byte[] sender, UniverseFloor floor,
            BooleanSupplier claimGate) {
        this.replica = replica;
        this.floor = floor;
        this.claimGate = claimGate;
        this.intent = intent;
        this.sender = sender.clone();
        if (sender.length > Frames.MAX_SENDER_BYTES) {
            throw new IllegalArgumentException("sender over " + Frames.MAX_SENDER_BYTES + " bytes");
        }
    }

    /** The opening frames: PREAMBLE and FRONTIER, from one consistent view of the replica. */
    public List<byte[]> start() throws SyncException {
        view = replica.view();
        if (intent == Intent.BOOTSTRAP && (!view.network().isBootstrapping() || !view.frontier().isZero())) {
            throw new SyncException(SyncException.Kind.CLAIMANT_HAS_HISTORY,
                    "this replica holds a universe or history and cannot bootstrap");
        }
        if (intent == Intent.GOSSIP && view.network().isBootstrapping()) {
            throw new SyncException(SyncException.Kind.UNEXPECTED_FRAME, "a bootstrapping replica can only bootstrap");
        }
        return List.of(Frames.preamble(view.network(), intent, view.frontier().minTicks(), sender),
                Frames.frontier(view.frontier()));
    }

    /** Handles one frame body and returns the frames to send in reply. */
    public List<byte[]> onFrame(byte[] body) throws SyncException {
        try {
            WireReader r = new WireReader(body, 1, body.length - 1);
            int type = body[0] & 0xFF;
            if (type == Frames.ABORT) {
                throw new SyncException(SyncException.Kind.PEER_ABORTED, Frames.readAbort(r));
            }
            switch (state) {
                case AWAIT_PREAMBLE:
                    expect(type, Frames.PREAMBLE);
                    return onPreamble(Frames.readPreamble(r));
                case AWAIT_CLAIM:
                    expect(type, Frames.CLAIM);
                    return provide(Frames.readClaim(r));
                case AWAIT_FRONTIER:
                    expect(type, Frames.FRONTIER);
                    Version frontier = Version.fromBytes(r.readBytes(r.remaining()));
                    return onFrontier(frontier);
                case AWAIT_GRANT:
                    expect(type, Frames.GRANT);
                    onGrant(r);
                    return List.of();
                case AWAIT_SUPPLY:
                    if (type == Frames.MESSAGES) {
                        onMessages(r);
                        return List.of();
                    }
                    expect(type, Frames.END);
                    return onEnd(r);
                case AWAIT_COMMIT:
                    expect(type, Frames.COMMIT);
                    r.expectEnd("commit");
                    state = State.DONE;
                    return List.of();
                default:
                    throw new SyncException(SyncException.Kind.UNEXPECTED_FRAME, "frame " + type + " after the end");
            }
        } catch (MalformedException e) {
            throw new SyncException(SyncException.Kind.MALFORMED_FRAME, e.getMessage(), e);
        }
    }

    public boolean isDone() {
        return state == State.DONE;
    }

    /** The result; only once {@link #isDone()}. */
    public SyncOutcome outcome() {
        if (state != State.DONE) {
            throw new IllegalStateException("session not done: " + state);
        }
        return new SyncOutcome(role, remote.network(), remote.sender(), sent, received.size(), added);
    }

    private List<byte[]> onPreamble(Frames.Preamble p) throws SyncException {
        remote = p;
        boolean remoteNewcomer = p.intent() == Intent.BOOTSTRAP;
        if (remoteNewcomer != p.network().isBootstrapping()) {
            throw new SyncException(SyncException.Kind.MALFORMED_FRAME,
                    "intent " + p.intent() + " does not match network " + p.network());
        }
        if (intent == Intent.BOOTSTRAP && remoteNewcomer) {
            throw new SyncException(SyncException.Kind.BOTH_BOOTSTRAPPING, "two newcomers met; neither can provide");
        }
        if (intent == Intent.GOSSIP && !remoteNewcomer && !p.network().equals(view.network())) {
            throw new NetworkMismatchException(view.network(), view.frontier().minTicks(), p.network(), p.minTicks());
        }
        // A loser that bootstrapped from a peer of an even weaker universe would only lose again.
        if (intent == Intent.BOOTSTRAP && floor != null && !p.network().equals(floor.network())
                && !NetworkMismatchException.beats(p.minTicks(), p.network(), floor.minTicks(), floor.network())) {
            throw new SyncException(SyncException.Kind.INFERIOR_UNIVERSE,
                    "provider's universe " + p.network() + " loses to " + floor.network());
        }
        role = intent == Intent.BOOTSTRAP ? Role.NEWCOMER : remoteNewcomer ? Role.PROVIDER : Role.PEER;
        state = State.AWAIT_FRONTIER;
        if (role != Role.NEWCOMER) {
            return List.of();
        }
        // Only now, with the provider's universe checked, may it fork its identity for us.
        if (!claimGate.getAsBoolean()) {
            throw new SyncException(SyncException.Kind.BOOTSTRAP_BUSY, "already bootstrapping over another link");
        }
        // An earlier life of this sled in the provider's universe left its identity: ask it back.
        claimed = replica.keeper().find(p.network());
        return List.of(Frames.claim(claimed));
    }

    private List<byte[]> onFrontier(Version frontier) throws SyncException {
        remoteFrontier = frontier;
        switch (role) {
            case NEWCOMER:
                state = State.AWAIT_GRANT;
                return List.of();
            case PROVIDER:
                if (!frontier.isZero()) {
                    throw new SyncException(SyncException.Kind.CLAIMANT_HAS_HISTORY,
                            "bootstrap claimant has frontier " + frontier);
                }
                state = State.AWAIT_CLAIM;
                return List.of();
            default:
                if (frontier.equals(view.frontier())) {
                    role = Role.IN_SYNC;
                    state = State.DONE;
                    return List.of();
                }
                Replica.Supply supply = replica.supplyFor(view, frontier);
                sent = supply.messages().size();
                supplyBound = frontier;
                state = State.AWAIT_SUPPLY;
                return Frames.supply(supply.messages(), supply.forgotten());
        }
    }

    private List<byte[]> provide(Optional<Bookmark> bookmark) throws SyncException {
        Replica.Grant g;
        try {
            g = replica.grant(bookmark);
        } catch (ReplicaException e) {
            throw new SyncException(SyncException.Kind.REPLICA_REFUSED, e.getMessage(), e);
        }
        sent = g.messages().size();
        List<byte[]> frames = new ArrayList<>();
        frames.add(Frames.grant(g));
        frames.addAll(Frames.supply(g.messages(), g.forgotten()));
        frames.add(Frames.commit());
        state = State.AWAIT_COMMIT;
        return frames;
    }

    private void onGrant(WireReader r) throws MalformedException, SyncException {
        NetworkId network = NetworkId.of(r.readBytes(NetworkId.SIZE_BYTES));
        Id share = Frames.readId(r);
        Version frontier = Frames.readVersion(r);
        r.expectEnd("grant");
        if (network.isBootstrapping()) {
            throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY, "grant without a universe");
        }
        if (share.isZero()) {
            // No share: the provider gives this sled its claimed identity back.
            if (claimed.isEmpty() || !claimed.get().network().equals(network)
                    || !claimed.get().lastSent().leq(frontier)) {
                throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY,
                        "grant without an identity for a claim that asked none back");
            }
            share = claimed.get().identity();
        } else {
            claimed = Optional.empty();
        }
        grant = new Replica.Grant(network, share, frontier, List.of());
        supplyBound = frontier;
        state = State.AWAIT_SUPPLY;
    }

    private void onMessages(WireReader r) throws MalformedException, SyncException {
        int count = r.readVarintAtMost(Replica.MAX_MESSAGES, "message count");
        for (int i = 0; i < count; i++) {
            Version v = Frames.readMessageVersion(r);
            byte[] payload = r.readLengthPrefixed(Replica.MAX_PAYLOAD_BYTES, "payload");
            if (!v.leq(supplyBound)) {
                throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY, "message " + v + " above the peer's frontier");
            }
            if (role == Role.PEER && v.leq(view.frontier())) {
                throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY, "message " + v + " is one we hold");
            }
            if (!receivedVersions.add(v) || received.size() >= Replica.MAX_MESSAGES) {
                throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY, "duplicate or too many messages");
            }
            received.add(new Message(v, payload));
        }
        r.expectEnd("messages");
    }

    private List<byte[]> onEnd(WireReader r) throws MalformedException, SyncException {
        long total = r.readVarint();
        Version forgotten = r.remaining() > 0 ? Frames.readVersion(r) : Version.ZERO;
        r.expectEnd("end");
        if (total != received.size()) {
            throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY,
                    "peer announced " + total + " messages, sent " + received.size());
        }
        // The frontier is the join of every version held or forgotten, so what we hold joined
        // with what we got and what the peer says it forgot must reach the peer's frontier;
        // anything less means the peer left a gap. A peer that forgot nothing is held to exactly
        // its frontier.
        Version base = role == Role.NEWCOMER ? Version.ZERO : view.frontier();
        Version covered = base;
        for (Message m : received) {
            covered = covered.join(m.version());
        }
        boolean coversIt = forgotten.isZero() ? covered.equals(base.join(supplyBound))
                : supplyBound.leq(covered.join(forgotten));
        if (!coversIt) {
            throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY, "supply does not cover the peer's frontier");
        }
        try {
            if (role == Role.NEWCOMER) {
                Replica.Grant full = new Replica.Grant(grant.network(), grant.identity(), grant.frontier(), received,
                        forgotten);
                if (claimed.isPresent()) {
                    replica.adoptResumed(full, claimed.get());
                } else {
                    replica.adopt(full);
                }
                added = received.size();
            } else {
                added = replica.commit(view.network(), remoteFrontier, forgotten, received);
            }
        } catch (ReplicaException e) {
            throw new SyncException(SyncException.Kind.REPLICA_REFUSED, e.getMessage(), e);
        }
        state = State.AWAIT_COMMIT;
        return List.of(Frames.commit());
    }

    private static void expect(int type, int wanted) throws SyncException {
        if (type != wanted) {
            throw new SyncException(SyncException.Kind.UNEXPECTED_FRAME, "frame " + type + ", expected " + wanted);
        }
    }
}
