package sush.pipeline.disk;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The output disk's reserve (issue 35, D-046): a full disk is a typed state the sled recovers
 * from, not a fault. Job outputs stop at the reserve (the job ends {@code no-space}); the journal
 * may write into the lower half of it, so that the records saying what happened still fit; a
 * sled short of space refuses jobs with that reason and answers {@code /ready} 503 while it
 * lasts. Every question reads the free space afresh, so the sled serves again as soon as space
 * returns, without a restart.
 *
 * <p>Free space is read from the file system ({@code statvfs}) through a {@link Gauge}, which
 * tests replace; a gauge that cannot be read counts as short, with the error as the reason.
 */
public final class DiskReserve {
    /** The largest default reserve: 64 MiB. */
    public static final long MAX_DEFAULT = 64L << 20;
    /** The default reserve's share of the disk: one twentieth (5%). */
    public static final int DEFAULT_SHARE = 20;

    /** The bytes this process may still write on the disk. */
    @FunctionalInterface
    public interface Gauge {
        long usable() throws IOException;
    }

    /** A disk that is never short (the simulator, tests that are not about space). */
    public static final DiskReserve NONE = new DiskReserve(() -> Long.MAX_VALUE, 0, "(no disk)");

    private final Gauge gauge;
    private final long reserve;
    private final String where;

    public DiskReserve(Gauge gauge, long reserve, String where) {
        if (reserve < 0) {
            throw new IllegalArgumentException("a reserve of " + reserve + " bytes");
        }
        this.gauge = Objects.requireNonNull(gauge, "gauge");
        this.reserve = reserve;
        this.where = Objects.requireNonNull(where, "where");
    }

    /**
     * The reserve of the disk holding {@code dir}: {@code reserve} bytes, or when negative the
     * default, the smaller of {@link #MAX_DEFAULT} and a twentieth of the disk.
     */
    public static DiskReserve of(Path dir, long reserve) throws IOException {
        FileStore store = Files.getFileStore(dir);
        long r = reserve >= 0 ? reserve : Math.min(MAX_DEFAULT, store.getTotalSpace() / DEFAULT_SHARE);
        return new DiskReserve(store::getUsableSpace, r, dir.toString());
    }

    /** The reserve in bytes. */
    public long reserve() {
        return reserve;
    }

    /** Free bytes now, or -1 when they cannot be read. */
    public long usable() {
        try {
            return gauge.usable();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Why the disk counts as full now, if it does: its free space is below the reserve. The
     * reason starts with {@code no-space}.
     */
    public Optional<String> shortage() {
        long free;
        try {
            free = gauge.usable();
        } catch (IOException | RuntimeException e) {
            return Optional.of("no-space: the free space of " + where + " cannot be read (" + e.getMessage() + ")");
        }
        if (free >= reserve) {
            return Optional.empty();
        }
        return Optional.of("no-space: " + free + " bytes free on " + where + ", below its reserve of " + reserve
                + " bytes; jobs are refused until space returns");
    }

    /** Whether a job's output may write {@code bytes} more: it leaves the whole reserve free. */
    public boolean outputRoom(long bytes) {
        return room(bytes, reserve);
    }

    /** Whether the journal may write {@code bytes} more: it leaves half of the reserve free. */
    public boolean journalRoom(long bytes) {
        return room(bytes, reserve / 2);
    }

    private boolean room(long bytes, long keep) {
        try {
            long free = gauge.usable();
            return free == Long.MAX_VALUE || free - bytes >= keep;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "reserve of " + reserve + " bytes on " + where;
    }
}
