package sush.ops.daemon;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import sush.locker.store.Slot;

/**
 * Faults a test injects into this sled's boundary slots while it runs (issue 38, the nemesis):
 * {@code sush daemon --fault-injection DIR} wraps each slot so that, at every read and write, it
 * looks in {@code DIR} for
 * <ul>
 * <li>{@code slot-delay-ms}: a number of milliseconds every slot write takes longer, after its
 * bytes are durable (a slow fsync: a worn or busy M.2);</li>
 * <li>{@code slot-eio}: {@code all}, or the index of one slot (0 or 1): that slot's reads and
 * writes fail with an I/O error, as a failing drive's do.</li>
 * </ul>
 * A missing file is no fault; a file the test is halfway through writing reads as no fault or a
 * whole one (the test renames it into place). Off unless the flag is given: a production daemon
 * never reads the directory, and the daemon says at start, at WARN, that faults are on.
 */
public final class SlotFaults {
    private static final Logger LOG = LoggerFactory.getLogger("sush.faults");
    /** The control file of the write delay. */
    public static final String DELAY = "slot-delay-ms";
    /** The control file of the failing slot. */
    public static final String EIO = "slot-eio";
    /** The longest injected delay honoured (a typo must not freeze a sled for hours). */
    static final long MAX_DELAY_MS = 60_000;

    private final Path dir;

    public SlotFaults(Path dir) {
        this.dir = dir;
    }

    /** {@code slot}, index {@code index} of the sled's two, failing and slowing as the control files say. */
    Slot wrap(Slot slot, int index) {
        LOG.warn("fault injection is ON for boundary slot {} ({}), controlled from {}: a test build, never a "
                + "rack's", index, slot.name(), dir);
        return new Faulty(slot, index);
    }

    private Optional<String> control(String name) {
        try {
            return Optional.of(Files.readString(dir.resolve(name), StandardCharsets.US_ASCII).trim());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            LOG.warn("cannot read the fault control file {}: {}", dir.resolve(name), e.getMessage());
            return Optional.empty();
        }
    }

    private void failIfBroken(Slot slot, int index, String what) throws IOException {
        Optional<String> eio = control(EIO);
        if (eio.isPresent() && (eio.get().equals("all") || eio.get().equals(Integer.toString(index)))) {
            throw new IOException("Input/output error (injected) " + what + " slot " + slot.name());
        }
    }

    private void delay() {
        long ms = control(DELAY).map(SlotFaults::millis).orElse(0L);
        if (ms > 0) {
            try {
                TimeUnit.MILLISECONDS.sleep(Math.min(ms, MAX_DELAY_MS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long millis(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** One slot behind the control files. */
    private final class Faulty implements Slot {
        private final Slot slot;
        private final int index;

        Faulty(Slot slot, int index) {
            this.slot = slot;
            this.index = index;
        }

        @Override
        public String name() {
            return slot.name();
        }

        @Override
        public Optional<byte[]> read() throws IOException {
            failIfBroken(slot, index, "reading");
            return slot.read();
        }

        @Override
        public void write(byte[] bytes) throws IOException {
            failIfBroken(slot, index, "writing");
            slot.write(bytes);
            delay();
        }

        @Override
        public Closeable lock() throws IOException {
            return slot.lock();
        }
    }
}
