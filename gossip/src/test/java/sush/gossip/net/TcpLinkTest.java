package sush.gossip.net;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class TcpLinkTest {
    @Test
    void aPeerThatStopsReadingLosesTheLinkAtTheQueueBound() {
        AtomicBoolean closed = new AtomicBoolean();
        TcpLink link = new TcpLink(() -> closed.set(true), null);
        for (int i = 0; i < TcpLink.MAX_QUEUED_CHUNKS; i++) {
            link.send(new byte[] {1});
        }
        assertTrue(link.isOpen(), "exactly the bound still fits");
        link.send(new byte[] {1});
        assertFalse(link.isOpen());
        assertTrue(closed.get());
    }
}
