package sush.gossip.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class BoundedChunkQueueTest {
    @Test
    void keepsOrderAcrossItsLinksAndRefusesPastTheBound() {
        int bound = 3 * BoundedChunkQueue.LINK + 5;
        BoundedChunkQueue q = new BoundedChunkQueue(bound);
        byte[][] chunks = new byte[bound][];
        for (int i = 0; i < bound; i++) {
            chunks[i] = new byte[] {(byte) i};
            assertTrue(q.offer(chunks[i]));
        }
        assertEquals(bound, q.size());
        assertFalse(q.offer(new byte[1]), "one past the bound is refused");
        assertSame(chunks[0], q.peek());
        for (int i = 0; i < 10; i++) {
            assertSame(chunks[i], q.poll());
        }
        assertEquals(bound - 10, q.size());
        assertTrue(q.offer(new byte[1]), "taking chunks makes room again");
        q.clear();
        assertEquals(0, q.size());
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        assertThrows(NullPointerException.class, () -> q.offer(null));
        assertThrows(IllegalArgumentException.class, () -> new BoundedChunkQueue(0));
    }

    @Test
    void oneProducerAndOneConsumerLoseNothingAndNeverPassTheBound() throws InterruptedException {
        int bound = 100;
        int total = 200_000;
        BoundedChunkQueue q = new BoundedChunkQueue(bound);
        AtomicLong taken = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        Thread consumer = new Thread(() -> {
            int expect = 0;
            while (expect < total) {
                byte[] c = q.poll();
                if (c == null) {
                    Thread.onSpinWait();
                    continue;
                }
                int got = ((c[0] & 0xFF) << 16) | ((c[1] & 0xFF) << 8) | (c[2] & 0xFF);
                if (got != expect) {
                    throw new AssertionError("chunk " + got + " where " + expect + " was due");
                }
                expect++;
                taken.incrementAndGet();
            }
            done.countDown();
        });
        consumer.start();
        for (int i = 0; i < total; ) {
            int size = q.size();
            assertTrue(size <= bound, "held " + size);
            if (q.offer(new byte[] {(byte) (i >>> 16), (byte) (i >>> 8), (byte) i})) {
                i++;
            } else {
                Thread.onSpinWait();
            }
        }
        assertTrue(done.await(30, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(total, taken.get());
        assertEquals(0, q.size());
    }
}
