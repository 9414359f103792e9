package sush.pipeline.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import sush.projections.id.Chain;
import sush.projections.id.SessionIds;

/** The terminal's playback is the last {@value Terminal#PLAYBACK_BYTES} bytes shown, exactly, across the ring's wrap. */
class TerminalTest {
    @Test
    void playbackIsTheLastSixtyFourKibibytesAtTheBound() {
        Terminal t = new Terminal(Chain.first(SessionIds.compute("t:x", new byte[SessionIds.NONCE_BYTES], new byte[0])), null);
        byte[] shown = new byte[Terminal.PLAYBACK_BYTES * 2 + 123];
        for (int i = 0; i < shown.length; i++) {
            shown[i] = (byte) (i * 31);
        }
        // Shown in uneven chunks, as a terminal's reads come.
        for (int at = 0; at < shown.length; at += 7_001) {
            int n = Math.min(7_001, shown.length - at);
            t.shown(Arrays.copyOfRange(shown, at, at + n), n);
        }
        assertArrayEquals(Arrays.copyOfRange(shown, shown.length - Terminal.PLAYBACK_BYTES, shown.length), t.recent());
        Terminal young = new Terminal(Chain.first(SessionIds.compute("t:y", new byte[SessionIds.NONCE_BYTES], new byte[0])), null);
        young.shown("hello".getBytes(), 5);
        assertArrayEquals("hello".getBytes(), young.recent(), "fewer at the start");
        // A client attaching gets the playback first, then what follows; the end completes it.
        List<String> got = new CopyOnWriteArrayList<>();
        young.attach().subscribe(b -> got.add(new String(b)));
        young.shown(" world".getBytes(), 6);
        young.end();
        assertEquals(List.of("hello", " world"), got);
        assertEquals(0, young.attached());
    }
}
