package sush.pipeline.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import sush.gossip.Entropy;
import sush.pipeline.disk.DiskReserve;

/**
 * The sled's journal: every delivered message and every decision, appended to a Chronicle Queue
 * under the output directory (never under the M.2 slots), sealed with AES-256-GCM when a key is
 * configured. Each excerpt is {@code [sealed flag, segment (8 bytes), counter (8 bytes), body]}:
 * a segment per opening, counting from 0, so a reader notices a missing or reordered record.
 * Chronicle counts an excerpt committed once it is in the mapped file; the journal is for
 * debugging and replay, not for the at-most-once promise.
 *
 * <p>Bounded (issue 16): the queue rolls to a new file every hour, and whenever it rolls, the
 * oldest hourly files are deleted while all of them together exceed the byte budget (the
 * current hour's file is never deleted). A journal whose oldest hours were deleted reads from
 * its first remaining record ({@link #read} says so).
 */
public final class Journal implements AutoCloseable {
    private static final String FIELD = "r";
    private static final int HEADER_BYTES = 1 + 2 * Long.BYTES;

    private final ChronicleQueue queue;
    private final ExcerptAppender appender;
    private final Optional<Sealer> sealer;
    /** The key, to read back what this journal sealed ({@link #readBack}). */
    private final Optional<byte[]> key;
    private final long segment;
    private long counter;
    private final Path dir;
    private final long maxBytes;
    private int cycle;
    private final DiskReserve disk;
    /** Records not written since the last one that was, for want of space. */
    private long unjournaled;
    /** Records not written in this life, for want of space. */
    private long unjournaledTotal;

    /**
     * Room asked beyond a record's own bytes before it is written: Chronicle's header, index
     * entries and a fresh index array may land in pages of the mapped file not yet allocated.
     */
    static final long MAPPING_MARGIN = 128L << 10;

    /** The journal's default byte budget: 1 GiB ({@code sush daemon --journal-max-bytes}). */
    public static final long DEFAULT_MAX_BYTES = 1L << 30;
    /** One file per hour (Chronicle's hourly cycle). */
    static final RollCycle CYCLE = RollCycles.FAST_HOURLY;
    /** Chronicle's files of cycles: what the budget counts and deletes (its metadata file is kept). */
    static final String CYCLE_SUFFIX = ".cq4";

    private Journal(ChronicleQueue queue, Optional<byte[]> key, Optional<Sealer> sealer, long segment, Path dir,
            long maxBytes, DiskReserve disk) {
        this.disk = disk;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.key = key.map(byte[]::clone);
        this.sealer = sealer;
        this.segment = segment;
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.cycle = Integer.MIN_VALUE;
    }

    /** Opens {@code dir} for appending with the default budget; {@code key} (32 bytes) seals every record. */
    public static Journal open(Path dir, Optional<byte[]> key, Entropy entropy) {
        return open(dir, key, entropy, DEFAULT_MAX_BYTES);
    }

    /** Opens {@code dir} for appending; its hourly files beyond {@code maxBytes} in all are deleted, oldest first. */
    public static Journal open(Path dir, Optional<byte[]> key, Entropy entropy, long maxBytes) {
        return open(dir, key, entropy, maxBytes, DiskReserve.NONE);
    }

    /**
     * As above, on a disk with a reserve (issue 35): a record that would leave less than half of
     * it free is not written, but counted; the next record that fits is preceded by one saying
     * how many were not (a gap replay shows, never a torn record).
     */
    public static Journal open(Path dir, Optional<byte[]> key, Entropy entropy, long maxBytes,
            DiskReserve disk) {
        return open(dir, key, entropy, maxBytes, ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(CYCLE), disk);
    }

    /** As above, on a queue built by {@code builder} (tests give it a clock they move). */
    static Journal open(Path dir, Optional<byte[]> key, Entropy entropy, long maxBytes,
            SingleChronicleQueueBuilder builder) {
        return open(dir, key, entropy, maxBytes, builder, DiskReserve.NONE);
    }

    static Journal open(Path dir, Optional<byte[]> key, Entropy entropy, long maxBytes,
            SingleChronicleQueueBuilder builder,
            DiskReserve disk) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("a journal budget of " + maxBytes + " bytes");
        }
        byte[] s = new byte[Long.BYTES];
        entropy.nextBytes(s);
        NeverBack clock = new NeverBack(builder.timeProvider());
        SingleChronicleQueue q = builder.timeProvider(clock).build();
        int newest = q.lastCycle();
        if (newest != Integer.MIN_VALUE && newest >= 0) {
            clock.atLeast(builder.epoch() + (long) newest * q.rollCycle().lengthInMillis());
        }
        Journal j = new Journal(q, key, key.map(k -> new Sealer(k, entropy)), ByteBuffer.wrap(s).getLong(),
                dir, maxBytes, Objects.requireNonNull(disk, "disk"));
        j.prune();
        return j;
    }

    /**
     * Deletes the oldest cycle files while the journal's files exceed its budget; never the
     * newest. Returns how many it deleted. A file it cannot delete is left for the next roll.
     */
    synchronized int prune() {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> listing = Files.list(dir)) {
            listing.filter(p -> p.getFileName().toString().endsWith(CYCLE_SUFFIX)).sorted().forEach(files::add);
        } catch (IOException e) {
            return 0;
        }
        long total = 0;
        long[] sizes = new long[files.size()];
        for (int i = 0; i < files.size(); i++) {
            try {
                sizes[i] = Files.size(files.get(i));
            } catch (IOException e) {
                sizes[i] = 0;
            }
            total += sizes[i];
        }
        int deleted = 0;
        for (int i = 0; i < files.size() - 1 && total > maxBytes; i++) {
            try {
                Files.deleteIfExists(files.get(i));
                total -= sizes[i];
                deleted++;
            } catch (IOException e) {
                break;
            }
        }
        if (deleted > 0) {
            // Chronicle's directory listing names the lowest hour: it must know the deleted ones are gone.
            queue.refreshDirectoryListing();
        }
        return deleted;
    }

    /** Reads a key file for {@link #open} and {@link #read}: 32 raw bytes or 64 hex characters. */
    public static byte[] readKey(Path file) throws JournalException, IOException {
        return Sealer.readKey(file);
    }

    /**
     * Appends {@code r}; false when it was not written because the disk is short of space (it
     * is counted, and the next record written is preceded by a note of the gap).
     */
    public synchronized boolean append(JournalRecord r) {
        byte[] stored = seal(r);
        if (!disk.journalRoom(stored.length + MAPPING_MARGIN)) {
            unjournaled++;
            unjournaledTotal++;
            return false;
        }
        if (unjournaled > 0) {
            byte[] gap = seal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", unjournaled
                    + (unjournaled == 1 ? " record was" : " records were") + " not journaled here: the disk was short "
                    + "of space (no-space)"));
            unjournaled = 0;
            write(gap);
            stored = seal(r); // sealed again: its position in the segment moved past the note
        }
        write(stored);
        return true;
    }

    /** Records not written in this life for want of space. */
    public synchronized long unjournaled() {
        return unjournaledTotal;
    }

    /** {@code r} as stored at the next position: header, then the body, sealed when keyed. */
    private byte[] seal(JournalRecord r) {
        byte[] body = RecordCodec.encode(r);
        byte[] aad = position(segment, counter);
        byte[] stored = sealer.isPresent() ? sealer.get().seal(aad, body) : body;
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + stored.length);
        b.put((byte) (sealer.isPresent() ? 1 : 0)).put(aad).put(stored);
        return b.array();
    }

    private void write(byte[] stored) {
        try (DocumentContext dc = appender.writingDocument()) {
            dc.wire().write(FIELD).bytes(stored);
        }
        counter++;
        if (appender.cycle() != cycle) {
            // A new hour's file: the budget is checked as the journal rolls.
            cycle = appender.cycle();
            prune();
        }
    }

    /**
     * Reads every record of {@code dir} in order. A sealed record needs the key; a wrong key, a
     * tampered record or a gap in a segment's counter is a {@link JournalException}.
     */
    public static void read(Path dir, Optional<byte[]> key, Consumer<JournalRecord> each) throws JournalException {
        read(dir, key, each, Optional.empty());
    }

    /**
     * Reads back every record this journal holds, oldest first, while it is still being written
     * (issue 39: the history the gossip set forgot). A damaged life is passed over, as
     * {@code sush replay} does; a record appended during the read may or may not be seen.
     */
    public void readBack(Consumer<JournalRecord> each) throws JournalException {
        Optional<Sealer> opener = key.map(k -> new Sealer(k, into -> {
            throw new IllegalStateException("a reader never seals");
        }));
        ExcerptTailer tailer = queue.createTailer();
        try {
            tailer.toStart();
            Cursor at = new Cursor(tailer, opener, Optional.of(d -> { }));
            for (JournalRecord r = at.next(); r != null; r = at.next()) {
                each.accept(r);
            }
        } finally {
            tailer.close();
        }
    }

    /**
     * A damaged record (issue 35): one that does not read though records before it did with
     * the same key, so the key is right and the record is not (a torn write when the disk filled
     * or the sled crashed mid-write, or altered bytes).
     *
     * @param excerpt the index of the first record that did not read
     * @param skipped the records passed over: the rest of that record's segment (its life)
     * @param why     what did not read
     */
    public record Damage(long excerpt, long skipped, String why) {
    }

    /**
     * As {@link #read(Path, Optional, Consumer)}; with {@code damaged}, a damaged record does not
     * end the read: the rest of its segment (the life that wrote it) is passed over, said to
     * {@code damaged}, and the read goes on with the next segment. Without it, a damaged record is a
     * {@code DAMAGED} failure, never blamed on the key.
     */
    public static void read(Path dir, Optional<byte[]> key, Consumer<JournalRecord> each,
            Optional<Consumer<Damage>> damaged) throws JournalException {
        Optional<Sealer> sealer = key.map(k -> new Sealer(k, into -> {
            throw new IllegalStateException("a reader never seals");
        }));
        try (ChronicleQueue q = ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(CYCLE).readOnly(true).build()) {
            // The listing may still name hours the budget deleted: read the directory afresh.
            q.refreshDirectoryListing();
            ExcerptTailer tailer = q.createTailer();
            tailer.toStart();
            Cursor at = new Cursor(tailer, sealer, damaged);
            for (JournalRecord r = at.next(); r != null; r = at.next()) {
                each.accept(r);
            }
        }
    }

    /**
     * Where a read stands: the next record, checked in order. One call per record (not one long
     * loop), so the JIT compiles it once with the whole profile, as it does everything else.
     */
    private static final class Cursor {
        private final ExcerptTailer tailer;
        private final Optional<Sealer> sealer;
        private final Optional<Consumer<Damage>> damaged;
        private long segment;
        private long expected;
        private long n;
        /** Records read whole so far: one proves the key (and the format) right. */
        private long good;

        Cursor(ExcerptTailer tailer, Optional<Sealer> sealer, Optional<Consumer<Damage>> damaged) {
            this.tailer = tailer;
            this.sealer = sealer;
            this.damaged = damaged;
        }

        /** The next record, or null at the end; a damaged record as {@link #read(Path, Optional, Consumer, Optional)} says. */
        JournalRecord next() throws JournalException {
            while (true) {
                byte[] raw = raw();
                if (raw == null) {
                    return null;
                }
                try {
                    return counted(raw);
                } catch (JournalException e) {
                    if (good == 0) {
                        throw e; // nothing read yet: the key or the format is what is wrong
                    }
                    if (damaged.isEmpty()) {
                        throw new JournalException(JournalException.Kind.DAMAGED, "record " + n + " is damaged, though "
                                + "the records before it read: a torn write (a full disk, or a crash mid-write) or "
                                + "altered bytes (" + e.getMessage() + ")");
                    }
                    long at = n;
                    long skipped = 1;
                    n++;
                    // The rest of this segment (the life that wrote it) is passed over: its
                    // records chain to one another, the next life's segment starts afresh.
                    while ((raw = raw()) != null && !startsSegment(raw)) {
                        skipped++;
                        n++;
                    }
                    damaged.get().accept(new Damage(at, skipped, e.getMessage()));
                    if (raw == null) {
                        return null;
                    }
                    try {
                        return counted(raw);
                    } catch (JournalException again) {
                        throw new JournalException(JournalException.Kind.DAMAGED, "record " + n + ", the first of "
                                + "the life after a damaged one, is damaged too: " + again.getMessage());
                    }
                }
            }
        }

        /** {@code raw} parsed, and counted as read whole (one proves the key right). */
        private JournalRecord counted(byte[] raw) throws JournalException {
            JournalRecord r = parse(raw);
            good++;
            return r;
        }

        /** The next excerpt's bytes, or null at the end. */
        private byte[] raw() {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    return null;
                }
                return dc.wire().read(FIELD).bytes();
            }
        }

        /** Whether {@code raw} is the first record of a segment (its counter is 0). */
        private static boolean startsSegment(byte[] raw) {
            return raw != null && raw.length >= HEADER_BYTES && ByteBuffer.wrap(raw, 1 + Long.BYTES, Long.BYTES)
                    .getLong() == 0;
        }

        private JournalRecord parse(byte[] raw) throws JournalException {
            if (raw == null || raw.length < HEADER_BYTES) {
                throw new JournalException(JournalException.Kind.CORRUPT, "excerpt " + n + " is not a record");
            }
            ByteBuffer b = ByteBuffer.wrap(raw);
            boolean sealed = b.get() == 1;
            long seg = b.getLong();
            long count = b.getLong();
            if (count == 0 || n == 0) {
                // A segment starts, or the journal's oldest hours were deleted (its budget): the
                // first record read may be any of its segment's.
                segment = seg;
                expected = count;
            }
            if (seg != segment || count != expected) {
                throw new JournalException(JournalException.Kind.CORRUPT,
                        "excerpt " + n + ": a record is missing or out of order");
            }
            if (sealed != sealer.isPresent()) {
                throw new JournalException(JournalException.Kind.KEY_MISMATCH, sealed
                        ? "the journal is encrypted: give its key" : "the journal is not encrypted: give no key");
            }
            JournalRecord r;
            if (sealed) {
                byte[] body = Arrays.copyOfRange(raw, HEADER_BYTES, raw.length);
                r = RecordCodec.decode(sealer.get().open(position(seg, count), body));
            } else {
                r = RecordCodec.decode(raw, HEADER_BYTES, raw.length - HEADER_BYTES);
            }
            expected++;
            n++;
            return r;
        }
    }

    private static byte[] position(long segment, long counter) {
        return ByteBuffer.allocate(2 * Long.BYTES).putLong(segment).putLong(counter).array();
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
    }
}
