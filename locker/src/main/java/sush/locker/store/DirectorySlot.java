package sush.locker.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * A slot in a directory of an M.2 dataset: the file {@code boundary}, written through
 * {@code boundary.tmp}, locked through {@code boundary.lock}. The directory is never created here:
 * a missing one is an unmounted dataset, an I/O error.
 */
public final class DirectorySlot implements Slot {
    /** Bound on a slot file read: a record and its header fit far below it; more is corruption. */
    public static final int MAX_FILE_BYTES = 128 * 1024;
    static final String FILE = "boundary";
    static final String TEMP = "boundary.tmp";
    static final String LOCK = "boundary.lock";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path dir;
    /** Told the nanoseconds of every fsync this slot makes (the daemon's metrics); none by default. */
    private final LongConsumer fsyncs;

    public DirectorySlot(Path dir) {
        this(dir, nanos -> { });
    }

    public DirectorySlot(Path dir, LongConsumer fsyncNanos) {
        this.dir = dir;
        this.fsyncs = fsyncNanos;
    }

    private void force(FileChannel ch) throws IOException {
        long t0 = System.nanoTime();
        ch.force(true);
        fsyncs.accept(System.nanoTime() - t0);
    }

    @Override
    public String name() {
        return dir.toString();
    }

    public Path file() {
        return dir.resolve(FILE);
    }

    @Override
    public Optional<byte[]> read() throws IOException {
        Path file = file();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > MAX_FILE_BYTES) {
                throw new IOException(file + " holds " + size + " bytes, over " + MAX_FILE_BYTES);
            }
            ByteBuffer b = ByteBuffer.allocate((int) size);
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // Reads until the buffer is full or the file ends.
            }
            if (b.hasRemaining()) {
                throw new IOException(file + " shrank while read");
            }
            return Optional.of(b.array());
        } catch (NoSuchFileException e) {
            requireDirectory();
            return Optional.empty();
        }
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        Path temp = dir.resolve(TEMP);
        // A temp file left by a crashed process may carry other permissions: start from a new one,
        // created owner-only. Opening it fails if the directory is missing; it is never created.
        Files.deleteIfExists(temp);
        try (FileChannel ch = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                ownerOnly())) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            force(ch);
        }
        Files.move(temp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        // The rename is durable only once the directory is.
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            force(d);
        }
    }

    @Override
    public Closeable lock() throws IOException {
        requireDirectory();
        FileChannel ch = FileChannel.open(dir.resolve(LOCK), Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), ownerOnly());
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        if (lock == null) {
            ch.close();
            throw new SlotLockedException(dir + " is locked by another locker (is a daemon already running?)");
        }
        // Closing the channel releases its lock (and the descriptor): one call, nothing to forget.
        return ch::close;
    }

    private void requireDirectory() throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "slot directory missing (is the M.2 dataset mounted?)");
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> ownerOnly() {
        return PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    }

    @Override
    public String toString() {
        return "DirectorySlot(" + dir + ")";
    }
}
