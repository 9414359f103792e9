package sush.gossip.net;

import java.util.AbstractQueue;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.util.concurrent.Queues;

/**
 * A link's outgoing chunks: one producer (the link's serialized sends) and one consumer
 * (Netty's writer), refusing an offer beyond {@code bound} chunks held. It grows in links of
 * {@link #LINK} slots as it fills, so an idle or quiet link holds a few hundred bytes, not an
 * array of the whole bound: a reactor {@code SpscArrayQueue} of 8,192 slots is 32 KiB taken at
 * every connection, and a rack of 32 sleds in one JVM (the benches, the simulators) copied
 * those arrays through every young collection.
 */
final class BoundedChunkQueue extends AbstractQueue<byte[]> {
    /** Slots per link of the underlying linked-array queue. */
    static final int LINK = 32;

    private final Queue<byte[]> chunks = Queues.<byte[]>unbounded(LINK).get();
    private final AtomicInteger held = new AtomicInteger();
    private final int bound;

    BoundedChunkQueue(int bound) {
        if (bound < 1) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        this.bound = bound;
    }

    @Override
    public boolean offer(byte[] chunk) {
        if (chunk == null) {
            throw new NullPointerException("chunk");
        }
        // One producer: the count only falls between this check and the offer, so the bound holds.
        if (held.get() >= bound) {
            return false;
        }
        held.incrementAndGet();
        chunks.offer(chunk);
        return true;
    }

    @Override
    public byte[] poll() {
        byte[] chunk = chunks.poll();
        if (chunk != null) {
            held.decrementAndGet();
        }
        return chunk;
    }

    @Override
    public byte[] peek() {
        return chunks.peek();
    }

    @Override
    public int size() {
        return held.get();
    }

    @Override
    public boolean isEmpty() {
        return chunks.isEmpty();
    }

    @Override
    public void clear() {
        while (poll() != null) {
            // drained one by one so the count follows
        }
    }

    /** Not supported, as by reactor's own queues: nothing walks a link's queue. */
    @Override
    public Iterator<byte[]> iterator() {
        throw new UnsupportedOperationException("a link's chunk queue is not iterable");
    }
}
