package sush.gossip.sync;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import sush.gossip.clock.Version;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.set.ReplicaException;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;
import sush.gossip.wire.WireWriter;

/**
 * A one-way PUSH frame: messages built on a base frontier, sent without a handshake (D-008).
 * A receiver that holds the base can add them and keep its invariant (every message at or
 * below its frontier is held); one that does not reports a gap and runs a full session instead.
 *
 * @param targets 32-bit hashes of every sled this batch has been pushed to, so a relay skips them
 */
public record Push(NetworkId network, byte[] sender, Targets targets, Version base, Version frontier,
        List<Message> messages) {
    /** Bound on the target set of one push (a rack has at most 32 sleds; relays add a few). */
    public static final int MAX_TARGETS = 256;

    /** What applying a push did. */
    public enum Result {
        /** Messages added (possibly none new). */
        APPLIED,
        /** The receiver lacks part of the base: run a session with the sender. */
        GAP,
        /** Another universe, or this replica is bootstrapping: ignored. */
        FOREIGN
    }

    /** The frame bytes (a push goes to many peers: encode it once and share the bytes). */
    public byte[] encode() {
        int size = 64 + sender.length + targets.size() * 4 + base.encodedSize() + frontier.encodedSize();
        for (Message m : messages) {
            size += m.version().encodedSize() + m.payloadSize() + 8;
        }
        WireWriter w = Frames.begin(Frames.PUSH, size);
        w.writeBytes(network.toBytes()).writeLengthPrefixed(sender);
        w.writeVarint(targets.size());
        targets.forEach(w::writeInt);
        w.writeLengthPrefixed(base.toBytes()).writeLengthPrefixed(frontier.toBytes());
        w.writeVarint(messages.size());
        for (Message m : messages) {
            w.writeLengthPrefixed(m.version().toBytes()).writeLengthPrefixed(m.payload());
        }
        return Frames.finish(w);
    }

    /** Decodes a PUSH frame body (type byte included) and checks it is self-consistent. */
    public static Push decode(byte[] body) throws SyncException {
        try {
            WireReader r = new WireReader(body, 1, body.length - 1);
            NetworkId network = NetworkId.of(r.readBytes(NetworkId.SIZE_BYTES));
            byte[] sender = r.readLengthPrefixed(Frames.MAX_SENDER_BYTES, "sender");
            int targetCount = r.readVarintAtMost(MAX_TARGETS, "push targets");
            int[] hashes = new int[targetCount];
            for (int i = 0; i < targetCount; i++) {
                hashes[i] = r.readInt();
            }
            Version base = Frames.readVersion(r);
            byte[] frontierBytes = Frames.readVersionBytes(r);
            Version frontier = Version.fromBytes(frontierBytes);
            int count = r.readVarintAtMost(Replica.MAX_MESSAGES, "message count");
            List<Message> messages = new ArrayList<>(Math.min(count, 1024));
            // A push of one message (the common case) needs no set to find a repeat.
            Set<Version> seen = count > 1 ? new HashSet<>() : null;
            Version covered = base;
            for (int i = 0; i < count; i++) {
                // A push of one send carries its version twice (frontier and message): decoded once.
                byte[] versionBytes = Frames.readVersionBytes(r);
                Version v = Arrays.equals(versionBytes, frontierBytes) ? frontier : Version.fromBytes(versionBytes);
                byte[] payload = r.readLengthPrefixed(Replica.MAX_PAYLOAD_BYTES, "payload");
                if (v.leq(base) || (seen != null && !seen.add(v))) {
                    throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY, "push repeats " + v);
                }
                messages.add(new Message(v, payload));
                covered = covered.join(v);
            }
            r.expectEnd("push");
            // As in a session: the messages above the base must make up the sender's frontier.
            if (!covered.equals(base.join(frontier))) {
                throw new SyncException(SyncException.Kind.INCONSISTENT_SUPPLY, "push does not cover its frontier");
            }
            return new Push(network, sender, Targets.of(hashes), base, frontier, List.copyOf(messages));
        } catch (MalformedException e) {
            throw new SyncException(SyncException.Kind.MALFORMED_FRAME, e.getMessage(), e);
        }
    }

    /** Adds the messages to {@code replica} if it is in this universe and holds the base. */
    public Result applyTo(Replica replica) throws SyncException {
        Replica.View view = replica.view();
        // A bootstrapping replica takes nothing but a bootstrap, even a push in its all-zero network.
        if (view.network().isBootstrapping() || !view.network().equals(network)) {
            return Result.FOREIGN;
        }
        if (!base.leq(view.frontier())) {
            return Result.GAP;
        }
        try {
            // Only a bootstrapping replica changes universe, so the one checked above still holds.
            replica.commit(network, base.join(frontier), messages);
        } catch (ReplicaException e) {
            throw new SyncException(SyncException.Kind.REPLICA_REFUSED, e.getMessage(), e);
        }
        return Result.APPLIED;
    }

    /** Whether a frame body is a PUSH. */
    public static boolean isPush(byte[] body) {
        return body.length > 0 && (body[0] & 0xFF) == Frames.PUSH;
    }
}
