package sush.locker.store;

import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;

/**
 * One M.2 slot holding one boundary file. Small on purpose, so the simulator can inject torn
 * writes, lost writes, bit flips, a missing directory, a full disk and I/O errors.
 */
public interface Slot {
    /** For messages: the directory, or the simulated slot's label. */
    String name();

    /**
     * The file's bytes, or empty when the directory exists and holds no file. Anything else (a
     * missing directory, an unreadable file) is an {@link IOException}: an unmounted dataset must
     * never read as an empty store.
     */
    Optional<byte[]> read() throws IOException;

    /**
     * Replaces the file whole and durably (temp file, fsync, atomic rename, fsync the directory;
     * mode 0600); returns only once the bytes are durable. Never creates the directory.
     */
    void write(byte[] bytes) throws IOException;

    /** Takes this slot's exclusive lock for the life of a locker; fails if anyone holds it. */
    Closeable lock() throws IOException;
}
