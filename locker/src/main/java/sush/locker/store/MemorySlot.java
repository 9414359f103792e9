package sush.locker.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.Optional;

/**
 * A slot in memory with the fault model of the simulator (verification.md section 3): I/O
 * errors, a full disk, a read-only slot, a missing directory, torn writes, writes a lying disk
 * loses at the next crash, and bit flips. A hook before each write lets a test or the model
 * check crash the process at any step of a store. Not thread-safe: one writer.
 */
public final class MemorySlot implements Slot {
    /** A fault armed for the next write(s). */
    public enum Fault {
        /** The write fails; the file is unchanged. */
        IO_ERROR,
        /** ENOSPC: the write fails; the file is unchanged. */
        NO_SPACE,
        /** The write is refused; the file is unchanged. */
        READ_ONLY,
        /** Half the bytes reach the file in place and the write fails (no atomic rename). */
        TORN,
        /** The write is acknowledged but lost at the next {@link #crash()} (a lying fsync). */
        LOST_ON_CRASH
    }

    private final String name;
    private Optional<byte[]> durable = Optional.empty();
    /** What the file held before a write the next crash will lose, if one is pending. */
    private Optional<Optional<byte[]>> beforeLostWrite = Optional.empty();
    private boolean directory = true;
    private boolean locked;
    private Fault fault;
    private boolean persistentFault;
    private Runnable beforeWrite = () -> { };
    private long writes;

    public MemorySlot(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<byte[]> read() throws IOException {
        if (!directory) {
            throw new NoSuchFileException(name, null, "slot directory missing");
        }
        if (fault == Fault.IO_ERROR) {
            throw new IOException(name + ": injected read error");
        }
        return durable.map(byte[]::clone);
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        beforeWrite.run();
        if (!directory) {
            throw new NoSuchFileException(name, null, "slot directory missing");
        }
        Fault f = fault;
        if (!persistentFault) {
            fault = null;
        }
        if (f == Fault.IO_ERROR) {
            throw new IOException(name + ": injected I/O error");
        } else if (f == Fault.NO_SPACE) {
            throw new IOException(name + ": No space left on device");
        } else if (f == Fault.READ_ONLY) {
            throw new AccessDeniedException(name, null, "read-only file system");
        } else if (f == Fault.TORN) {
            durable = Optional.of(Arrays.copyOf(bytes, bytes.length / 2));
            throw new IOException(name + ": injected torn write");
        } else if (f == Fault.LOST_ON_CRASH && beforeLostWrite.isEmpty()) {
            beforeLostWrite = Optional.of(durable);
        }
        durable = Optional.of(bytes.clone());
        writes++;
    }

    @Override
    public Closeable lock() throws IOException {
        if (!directory) {
            throw new NoSuchFileException(name, null, "slot directory missing");
        }
        if (locked) {
            throw new SlotLockedException(name + " is locked by another locker");
        }
        locked = true;
        return () -> locked = false;
    }

    /** Arms {@code f} for the next write, or for every write until {@link #heal()} if persistent. */
    public void arm(Fault f, boolean persistent) {
        fault = f;
        persistentFault = persistent;
    }

    public void heal() {
        fault = null;
        persistentFault = false;
    }

    /** Runs before every write: a test throws from it to crash the process there. */
    public void beforeWrite(Runnable hook) {
        beforeWrite = hook;
    }

    /** The process died: writes a lying disk acknowledged are gone; the lock is released. */
    public void crash() {
        beforeLostWrite.ifPresent(previous -> durable = previous);
        beforeLostWrite = Optional.empty();
        locked = false;
    }

    public void removeDirectory() {
        directory = false;
    }

    public void restoreDirectory() {
        directory = true;
    }

    /** Flips one bit of the file (a flaky drive). */
    public void flipBit(int bit) {
        byte[] b = durable.orElseThrow(() -> new IllegalStateException(name + " holds no file"));
        b[(bit >>> 3) % b.length] ^= (byte) (1 << (bit & 7));
    }

    public Optional<byte[]> contents() {
        return durable.map(byte[]::clone);
    }

    public void setContents(Optional<byte[]> bytes) {
        durable = bytes.map(byte[]::clone);
    }

    public long writes() {
        return writes;
    }

    @Override
    public String toString() {
        return "MemorySlot(" + name + ")";
    }
}
