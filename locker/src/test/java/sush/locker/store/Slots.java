package sush.locker.store;

import java.util.List;
import java.util.Optional;

import sush.gossip.Entropy;
import sush.locker.Fixtures;
import sush.locker.record.RecordFormat;
import sush.locker.record.BoundaryCodec;
import sush.locker.record.BoundaryRecord;

/** Two in-memory slots and what tests write into them. */
final class Slots {
    final MemorySlot a = new MemorySlot("m2-a");
    final MemorySlot b = new MemorySlot("m2-b");
    private long lives;

    List<Slot> both() {
        return List.of(a, b);
    }

    Locker<BoundaryRecord> open() throws LockerException {
        return Locker.open(RecordFormat.CAUSAL, Fixtures.ME, both(), Entropy.seeded(++lives));
    }

    /** The process died: the slots keep what was durable and release their locks. */
    void crash() {
        a.crash();
        b.crash();
    }

    static byte[] file(byte nonceByte, long seq, BoundaryRecord r) {
        byte[] nonce = new byte[SlotFile.NONCE_BYTES];
        java.util.Arrays.fill(nonce, nonceByte);
        return new SlotFile(nonce, seq, BoundaryCodec.encode(r)).encode();
    }

    static Optional<BoundaryRecord> body(MemorySlot s) throws Exception {
        return Optional.of(BoundaryCodec.decode(SlotFile.decode(s.contents().orElseThrow()).body()));
    }
}
