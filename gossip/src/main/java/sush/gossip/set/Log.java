package sush.gossip.set;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A replica's delivery log: messages in the order they became held, each at a checkpoint
 * (1, 2, 3, ... in that order) that never changes. Forgetting a message leaves a gap that
 * readers pass over; gaps are squeezed out once they outnumber what is held, so the log's
 * memory follows the messages held, not every message ever held. Not thread-safe: the
 * replica's lock guards it.
 */
final class Log {
    /** Gaps tolerated before squeezing, whatever the size (a squeeze costs one pass). */
    static final int MIN_GAPS_BEFORE_SQUEEZE = 64;

    private Message[] messages = new Message[16];
    private long[] seqs = new long[16];
    /** Slots in use, gaps included. */
    private int count;
    private int gaps;
    private long lastSeq;

    /** Appends a message and returns its checkpoint. */
    long append(Message m) {
        if (count == messages.length) {
            int n = Math.max(16, count * 2);
            messages = Arrays.copyOf(messages, n);
            seqs = Arrays.copyOf(seqs, n);
        }
        messages[count] = m;
        seqs[count] = ++lastSeq;
        count++;
        return lastSeq;
    }

    /** Forgets the message at checkpoint {@code seq} (one that is held). */
    void clear(long seq) {
        int i = Arrays.binarySearch(seqs, 0, count, seq);
        if (i < 0 || messages[i] == null) {
            throw new IllegalStateException("no message held at checkpoint " + seq);
        }
        messages[i] = null;
        gaps++;
        if (gaps >= MIN_GAPS_BEFORE_SQUEEZE && gaps > count - gaps) {
            squeeze();
        }
    }

    private void squeeze() {
        int w = 0;
        for (int r = 0; r < count; r++) {
            if (messages[r] != null) {
                messages[w] = messages[r];
                seqs[w] = seqs[r];
                w++;
            }
        }
        Arrays.fill(messages, w, count, null);
        count = w;
        gaps = 0;
        int n = Math.max(16, Integer.highestOneBit(Math.max(1, w)) * 2);
        if (n < messages.length) {
            messages = Arrays.copyOf(messages, n);
            seqs = Arrays.copyOf(seqs, n);
        }
    }

    /** The checkpoint of the newest message ever appended (0 when none was). */
    long lastSeq() {
        return lastSeq;
    }

    /** Slots in use, gaps included: indices run from 0 below this. */
    int count() {
        return count;
    }

    /** The first slot whose checkpoint is above {@code checkpoint} ({@link #count()} when none is). */
    int indexAfter(long checkpoint) {
        int i = Arrays.binarySearch(seqs, 0, count, checkpoint);
        return i >= 0 ? i + 1 : -i - 1;
    }

    long seq(int index) {
        return seqs[index];
    }

    /** The message at a slot, or null when it was forgotten. */
    Message message(int index) {
        return messages[index];
    }

    /** Every message held, in log order. */
    List<Message> held() {
        List<Message> out = new ArrayList<>(count - gaps);
        for (int i = 0; i < count; i++) {
            if (messages[i] != null) {
                out.add(messages[i]);
            }
        }
        return out;
    }
}
