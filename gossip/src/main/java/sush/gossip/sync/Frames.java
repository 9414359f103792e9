package sush.gossip.sync;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Bookmark;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.wire.MalformedException;
import sush.gossip.wire.WireReader;
import sush.gossip.wire.WireWriter;

/**
 * The sync protocol's frames (D-004). Each is {@code u32 length | type | fields}.
 *
 * <pre>
 * PREAMBLE  magic "SUSHSYNC" | protocol u8 | network 16 | intent u8 | minTicks varint | sender bytes
 * FRONTIER  version bytes
 * MESSAGES  count varint | count x (version bytes, payload bytes)
 * END       total count varint [| forgotten version bytes]
 * GRANT     network 16 | identity bytes | frontier bytes
 * COMMIT    (nothing: the one-byte confirmation)
 * ABORT     reason text
 * CLAIM     [bookmark: network 16 | identity bytes | last sent bytes] (a newcomer accepts this
 *           provider; only then does the provider fork, or give the bookmark's identity back)
 * PUSH      network 16 | sender bytes | targets (count varint, u32 each) | base bytes |
 *           frontier bytes | count varint | count x (version bytes, payload bytes)
 * </pre>
 * "bytes" is a varint length and the bytes. END names the ceiling of what the supplier forgot
 * (bounded-gossip.md section 3) only when it forgot something, so a supplier that never forgets
 * sends the bytes it always sent.
 */
final class Frames {
    static final int MAX_FRAME_BYTES = 1 << 20;
    /**
     * Bound on a frame from a peer not yet identified: its PREAMBLE (a dialler's first frame,
     * about 40 bytes and its name) fits many times over; nothing larger is read from a stranger.
     */
    static final int MAX_FIRST_FRAME_BYTES = 4096;
    /** MESSAGES frames are filled up to about this size. */
    static final int BATCH_TARGET_BYTES = 64 * 1024;
    static final int MAX_SENDER_BYTES = 256;
    static final int MAX_ABORT_TEXT_BYTES = 1024;
    /** A version is bounded by the frame it travels in. */
    static final int MAX_VERSION_BYTES = MAX_FRAME_BYTES;

    static final byte[] MAGIC = "SUSHSYNC".getBytes(StandardCharsets.US_ASCII);
    static final int PROTOCOL_VERSION = 1;

    static final int PREAMBLE = 1;
    static final int FRONTIER = 2;
    static final int MESSAGES = 3;
    static final int END = 4;
    static final int GRANT = 5;
    static final int COMMIT = 6;
    static final int ABORT = 7;
    static final int PUSH = 8;
    static final int CLAIM = 9;

    private static final int HEADER_BYTES = 4;

    private Frames() {
    }

    /** Starts a frame: room for the length, then the type. */
    static WireWriter begin(int type, int capacity) {
        WireWriter w = new WireWriter(capacity + HEADER_BYTES + 1);
        w.writeInt(0);
        w.writeByte(type);
        return w;
    }

    /** Back-fills the length and returns the frame bytes. */
    static byte[] finish(WireWriter w) {
        w.putInt(0, w.size() - HEADER_BYTES);
        return w.toByteArray();
    }

    static byte[] preamble(NetworkId network, SyncSession.Intent intent, long minTicks, byte[] sender) {
        WireWriter w = begin(PREAMBLE, 64 + sender.length);
        w.writeBytes(MAGIC).writeByte(PROTOCOL_VERSION).writeBytes(network.toBytes());
        w.writeByte(intent.ordinal()).writeVarint(minTicks).writeLengthPrefixed(sender);
        return finish(w);
    }

    static byte[] frontier(Version v) {
        WireWriter w = begin(FRONTIER, v.encodedSize());
        w.writeBytes(v.toBytes());
        return finish(w);
    }

    /** MESSAGES frames of about {@link #BATCH_TARGET_BYTES} each, then END with the total. */
    static List<byte[]> supply(List<Message> messages) {
        return supply(messages, Version.ZERO);
    }

    /** {@link #supply(List)} whose END also names the supplier's forgotten ceiling when it is not zero. */
    static List<byte[]> supply(List<Message> messages, Version forgotten) {
        List<byte[]> frames = new ArrayList<>();
        int i = 0;
        while (i < messages.size()) {
            int start = i;
            int bytes = 0;
            while (i < messages.size() && (i == start || bytes < BATCH_TARGET_BYTES)) {
                Message m = messages.get(i++);
                bytes += m.version().encodedSize() + m.payloadSize() + 8;
            }
            WireWriter w = begin(MESSAGES, bytes + 8);
            w.writeVarint(i - start);
            for (int k = start; k < i; k++) {
                Message m = messages.get(k);
                w.writeLengthPrefixed(m.version().toBytes()).writeLengthPrefixed(m.payload());
            }
            frames.add(finish(w));
        }
        WireWriter end = begin(END, 10 + forgotten.encodedSize());
        end.writeVarint(messages.size());
        if (!forgotten.isZero()) {
            end.writeLengthPrefixed(forgotten.toBytes());
        }
        frames.add(finish(end));
        return frames;
    }

    static byte[] grant(Replica.Grant grant) {
        WireWriter w = begin(GRANT, 64);
        w.writeBytes(grant.network().toBytes());
        w.writeLengthPrefixed(grant.identity().toBytes()).writeLengthPrefixed(grant.frontier().toBytes());
        return finish(w);
    }

    static byte[] commit() {
        return finish(begin(COMMIT, 0));
    }

    static byte[] claim() {
        return claim(Optional.empty());
    }

    /** A CLAIM, with the bookmark of the newcomer's earlier life in the provider's universe if any. */
    static byte[] claim(Optional<Bookmark> bookmark) {
        WireWriter w = begin(CLAIM, bookmark.isPresent() ? 64 : 0);
        bookmark.ifPresent(b -> b.writeTo(w));
        return finish(w);
    }

    static Optional<Bookmark> readClaim(WireReader r) throws MalformedException {
        if (r.remaining() == 0) {
            return Optional.empty();
        }
        Bookmark b = Bookmark.readFrom(r);
        r.expectEnd("claim");
        return Optional.of(b);
    }

    static byte[] abort(String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        WireWriter w = begin(ABORT, MAX_ABORT_TEXT_BYTES);
        w.writeLengthPrefixed(Arrays.copyOf(text, Math.min(text.length, MAX_ABORT_TEXT_BYTES)));
        return finish(w);
    }

    /** A decoded PREAMBLE. */
    record Preamble(NetworkId network, SyncSession.Intent intent, long minTicks, byte[] sender) {
    }

    static Preamble readPreamble(WireReader r) throws MalformedException, SyncException {
        byte[] magic = r.readBytes(MAGIC.length);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new SyncException(SyncException.Kind.UNSUPPORTED_PROTOCOL, "bad magic");
        }
        int protocol = r.readByte();
        if (protocol != PROTOCOL_VERSION) {
            throw new SyncException(SyncException.Kind.UNSUPPORTED_PROTOCOL,
                    "protocol " + protocol + ", this side speaks " + PROTOCOL_VERSION);
        }
        NetworkId network = NetworkId.of(r.readBytes(NetworkId.SIZE_BYTES));
        int intent = r.readByte();
        if (intent >= SyncSession.Intent.values().length) {
            throw new MalformedException(MalformedException.Reason.OUT_OF_RANGE, "intent " + intent);
        }
        long minTicks = r.readVarint();
        byte[] sender = r.readLengthPrefixed(MAX_SENDER_BYTES, "sender");
        r.expectEnd("preamble");
        return new Preamble(network, SyncSession.Intent.values()[intent], minTicks, sender);
    }

    /** The sender named in a PREAMBLE frame body, or empty if the body is not a valid preamble. */
    static Optional<byte[]> preambleSender(byte[] body) {
        if (body.length == 0 || (body[0] & 0xFF) != PREAMBLE) {
            return Optional.empty();
        }
        try {
            return Optional.of(readPreamble(new WireReader(body, 1, body.length - 1)).sender());
        } catch (MalformedException | SyncException e) {
            return Optional.empty();
        }
    }

    static Version readVersion(WireReader r) throws MalformedException {
        return Version.fromBytes(readVersionBytes(r));
    }

    /** A version's encoding, length-prefixed, not yet decoded (a push compares two before decoding). */
    static byte[] readVersionBytes(WireReader r) throws MalformedException {
        return r.readLengthPrefixed(MAX_VERSION_BYTES, "version");
    }

    /**
     * Bound on the tree depth of a message's version. Honest versions are as deep as the
     * identity tree (a few levels per fork); a hostile deep one would make the causal sort's
     * exact integral cost O(leaves x depth) bits.
     */
    static final int MAX_MESSAGE_DEPTH = 1024;

    /** A message's version: {@link #readVersion} within {@link #MAX_MESSAGE_DEPTH}. */
    static Version readMessageVersion(WireReader r) throws MalformedException {
        Version v = readVersion(r);
        if (v.depth() > MAX_MESSAGE_DEPTH) {
            throw new MalformedException(MalformedException.Reason.TOO_LARGE,
                    "message version " + v.depth() + " levels deep, bound " + MAX_MESSAGE_DEPTH);
        }
        return v;
    }

    static Id readId(WireReader r) throws MalformedException {
        return Id.fromBytes(r.readLengthPrefixed(MAX_VERSION_BYTES, "identity"));
    }

    static String readAbort(WireReader r) throws MalformedException {
        byte[] text = r.readLengthPrefixed(MAX_ABORT_TEXT_BYTES, "abort text");
        r.expectEnd("abort");
        return new String(text, StandardCharsets.UTF_8);
    }
}
