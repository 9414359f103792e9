package sush.ops.signer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * A signer's epoch file, beside its key (ordered-sessions.md section 1). Each epoch issued is
 * {@code max(now in ms, last + 1)}, written and fsynced (the file, then its directory) before
 * it is returned, so a signer never issues one epoch twice, even across crashes and a clock
 * that goes backwards. One issuer at a time: an exclusive lock on {@code FILE.lock}. A file
 * that is not one decimal epoch is refused, never guessed lower.
 */
public final class EpochFile {
    /** The file's name beside a key: {@code signer.key} has {@code signer.key.epoch}. */
    public static final String SUFFIX = ".epoch";
    /** Bound on the file's size: one decimal number below 2^63 and a newline. */
    static final int MAX_BYTES = 20;
    private static final ConcurrentMap<Path, Object> IN_THIS_PROCESS =
            new ConcurrentHashMap<>();

    private EpochFile() {
    }

    /** The epoch file of the signer key {@code keyFile}. */
    public static Path beside(Path keyFile) {
        return keyFile.resolveSibling(keyFile.getFileName() + SUFFIX);
    }

    /** The last epoch issued, if any. */
    public static OptionalLong last(Path file) throws EpochException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new EpochException("cannot read " + file + ": " + e.getMessage(), e);
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        if (bytes.length > MAX_BYTES || !text.matches("(0|[1-9][0-9]{0,18})\n")) {
            throw new EpochException(file + " is not an epoch file (one decimal number and a newline); refusing to "
                    + "guess the last epoch issued", null);
        }
        try {
            return OptionalLong.of(Long.parseLong(text.strip()));
        } catch (NumberFormatException e) {
            throw new EpochException(file + " holds an epoch past 2^63 - 1", e);
        }
    }

    /** Issues the next epoch: {@code max(now, last + 1)}, durable before it is returned. */
    public static long next(Path file, LongSupplier nowMillis) throws EpochException {
        // A file lock excludes other processes; threads of this one queue on the path first (the
        // JVM refuses a second lock of one file it already holds).
        Object monitor = IN_THIS_PROCESS.computeIfAbsent(file.toAbsolutePath().normalize(), p -> new Object());
        synchronized (monitor) {
            return nextLocked(file, nowMillis);
        }
    }

    private static long nextLocked(Path file, LongSupplier nowMillis) throws EpochException {
        Path lock = file.resolveSibling(file.getFileName() + ".lock");
        try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            if (!held.isValid()) {
                throw new EpochException("lost the lock on " + lock, null);
            }
            OptionalLong last = last(file);
            long now = nowMillis.getAsLong();
            if (last.isPresent() && last.getAsLong() == Long.MAX_VALUE) {
                throw new EpochException(file + " reached the last epoch", null);
            }
            long epoch = Math.max(Math.max(now, 0), last.isPresent() ? last.getAsLong() + 1 : 0);
            write(file, epoch);
            return epoch;
        } catch (NoSuchFileException e) {
            throw new EpochException("cannot issue an epoch from " + file + ": no directory "
                    + file.toAbsolutePath().getParent(), e);
        } catch (IOException e) {
            throw new EpochException("cannot issue an epoch from " + file + ": " + e, e);
        }
    }

    /** The temp file fsynced, renamed over the file, the directory fsynced. */
    private static void write(Path file, long epoch) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".new");
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap((epoch + "\n").getBytes(StandardCharsets.US_ASCII));
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the epoch file's directory cannot rename atomically", e);
        }
        Path dir = file.toAbsolutePath().getParent();
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** The epoch file could not be read or advanced; nothing was issued. */
    public static final class EpochException extends Exception {
        private static final long serialVersionUID = 1L;

        EpochException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
