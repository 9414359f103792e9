package sush.gossip.sync;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import sush.gossip.link.Link;
import sush.gossip.link.LinkBrokenException;

/**
 * Test fixture: a link whose peer is the test. Everything sent is recorded (and may be
 * intercepted re-entrantly), the peer's bytes are handed in by {@link #deliver}, and the peer
 * may close cleanly ({@link #complete}), which an in-memory link never does.
 */
final class ScriptedLink implements Link {
    private final Sinks.Many<byte[]> inbound = Sinks.many().unicast().onBackpressureBuffer();
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    private final Optional<String> identity;
    private int sends;
    private String poisoned;
    /** Runs on each send, after the bytes are recorded, on the sender's thread. */
    Consumer<byte[]> onSend = bytes -> { };

    ScriptedLink() {
        this(Optional.empty());
    }

    ScriptedLink(Optional<String> identity) {
        this.identity = identity;
    }

    @Override
    public void send(byte[] bytes) {
        if (poisoned != null) {
            return;
        }
        sent.writeBytes(bytes);
        sends++;
        onSend.accept(bytes);
    }

    @Override
    public Flux<byte[]> receive() {
        return inbound.asFlux();
    }

    @Override
    public void poison(String reason) {
        if (poisoned == null) {
            poisoned = reason;
            inbound.tryEmitError(new LinkBrokenException("link poisoned: " + reason));
        }
    }

    @Override
    public boolean isOpen() {
        return poisoned == null;
    }

    @Override
    public Optional<String> peerIdentity() {
        return identity;
    }

    /** The peer's bytes arrive as one chunk. */
    void deliver(byte[] chunk) {
        Sinks.EmitResult r = inbound.tryEmitNext(chunk);
        if (r.isFailure() && r != Sinks.EmitResult.FAIL_CANCELLED && r != Sinks.EmitResult.FAIL_TERMINATED) {
            throw new AssertionError("delivery failed: " + r);
        }
    }

    /** The peer's frames, each whole, as one chunk. */
    void deliverFrames(byte[]... frames) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] f : frames) {
            all.writeBytes(f);
        }
        deliver(all.toByteArray());
    }

    /** The peer closes its end cleanly. */
    void complete() {
        inbound.tryEmitComplete();
    }

    boolean isReadBySomeone() {
        return inbound.currentSubscriberCount() > 0;
    }

    String poisonReason() {
        return poisoned;
    }

    /** How many times {@link #send} handed bytes over. */
    int sends() {
        return sends;
    }

    byte[] sentBytes() {
        return sent.toByteArray();
    }

    /** Every frame body sent so far (type byte first), cut by a parser of its own. */
    List<byte[]> sentFrames() {
        return cut(sentBytes());
    }

    /** The type byte of every frame sent so far. */
    List<Integer> sentTypes() {
        List<Integer> types = new ArrayList<>();
        for (byte[] body : sentFrames()) {
            types.add(body[0] & 0xFF);
        }
        return types;
    }

    /** Cuts whole frames; a partial frame at the end is an error. */
    static List<byte[]> cut(byte[] stream) {
        List<byte[]> frames = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(stream);
        while (b.hasRemaining()) {
            int length = b.getInt();
            frames.add(Arrays.copyOfRange(stream, b.position(), b.position() + length));
            b.position(b.position() + length);
        }
        return frames;
    }

    /** A frame's body: its bytes without the 4-byte length. */
    static byte[] body(byte[] frame) {
        return Arrays.copyOfRange(frame, 4, frame.length);
    }
}
