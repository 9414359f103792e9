package sush.locker.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.locker.Fixtures;
import sush.locker.record.RecordFormat;
import sush.locker.record.BoundaryRecord;

class DirectorySlotTest {
    @TempDir
    Path root;

    @Test
    void writesAreWholeOwnerOnlyAndReadBack() throws Exception {
        DirectorySlot s = new DirectorySlot(root);
        assertEquals(Optional.empty(), s.read());
        s.write(new byte[] {1, 2, 3});
        s.write(new byte[] {4, 5});
        assertArrayEquals(new byte[] {4, 5}, s.read().orElseThrow());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(s.file())));
        assertFalse(Files.exists(root.resolve(DirectorySlot.TEMP)), "the temp file was renamed into place");
    }

    @Test
    void aMissingDirectoryIsAnIoErrorAndIsNeverCreated() {
        DirectorySlot s = new DirectorySlot(root.resolve("unmounted"));
        assertThrows(NoSuchFileException.class, s::read);
        assertThrows(NoSuchFileException.class, () -> s.write(new byte[] {1}));
        assertFalse(Files.exists(root.resolve("unmounted")));
    }

    @Test
    void anOversizedFileIsAnIoError() throws Exception {
        Files.write(root.resolve(DirectorySlot.FILE), new byte[DirectorySlot.MAX_FILE_BYTES + 1]);
        assertThrows(java.io.IOException.class, () -> new DirectorySlot(root).read());
    }

    @Test
    void aSecondLockerInTheSameProcessIsRefused() throws Exception {
        List<Slot> slots = slots();
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, slots, Entropy.seeded(1))) {
            assertTrue(l.trusted());
            LockerException e = assertThrows(LockerException.class,
                    () -> Locker.open(RecordFormat.CAUSAL, Fixtures.ME, slots(), Entropy.seeded(2)));
            assertEquals(LockerException.Kind.LOCKED, e.kind());
            assertTrue(e.getMessage().contains("locked"), e.getMessage());
        }
        Locker.open(RecordFormat.CAUSAL, Fixtures.ME, slots, Entropy.seeded(3)).close();
    }

    @Test
    void aReadOnlyDirectoryFailsTheStore() throws Exception {
        List<Slot> slots = slots();
        BoundaryRecord g = Locker.provision(RecordFormat.CAUSAL, slots, Entropy.seeded(1), BoundaryRecord.genesis(Fixtures.ME));
        Path b = root.resolve("b");
        Files.setPosixFilePermissions(b, PosixFilePermissions.fromString("r-x------"));
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, slots, Entropy.seeded(2))) {
            if (Files.isWritable(b)) {
                return; // root ignores directory permissions; the in-memory slot tests cover this.
            }
            LockerException e = assertThrows(LockerException.class, () -> l.store(l.reserve(n -> g)));
            assertEquals(LockerException.Kind.IO, e.kind());
        } finally {
            Files.setPosixFilePermissions(b, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void theLockerRoundTripsThroughDirectories() throws Exception {
        List<Slot> slots = slots();
        BoundaryRecord g = Locker.provision(RecordFormat.CAUSAL, slots, Entropy.seeded(1), BoundaryRecord.genesis(Fixtures.ME));
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, slots, Entropy.seeded(2))) {
            assertEquals(Load.Verdict.ADOPT, l.load().verdict());
            assertEquals(Optional.of(g), l.newest());
        }
        Files.delete(root.resolve("a").resolve(DirectorySlot.FILE));
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, slots, Entropy.seeded(3))) {
            assertEquals(Load.Verdict.RESTORE, l.load().verdict());
            l.store(l.reserve(n -> n.orElseThrow()));
        }
        assertTrue(Files.exists(root.resolve("a").resolve(DirectorySlot.FILE)), "restored by the re-stamp");
    }

    private List<Slot> slots() throws Exception {
        Files.createDirectories(root.resolve("a"));
        Files.createDirectories(root.resolve("b"));
        return List.of(new DirectorySlot(root.resolve("a")), new DirectorySlot(root.resolve("b")));
    }

    @Test
    void aSlotIsNamedByItsDirectoryAndAFileOfExactlyTheBoundReads() throws Exception {
        DirectorySlot s = new DirectorySlot(root);
        assertEquals(root.toString(), s.name());
        Files.write(root.resolve(DirectorySlot.FILE), new byte[DirectorySlot.MAX_FILE_BYTES]);
        assertEquals(DirectorySlot.MAX_FILE_BYTES, s.read().orElseThrow().length);
    }

    @Test
    void lockingAMissingDirectorySaysItIsMissingAndCreatesNothing() {
        DirectorySlot s = new DirectorySlot(root.resolve("unmounted"));
        NoSuchFileException e = assertThrows(NoSuchFileException.class, s::lock);
        assertTrue(e.getMessage().contains("slot directory missing"), e.getMessage());
        assertFalse(Files.exists(root.resolve("unmounted")));
    }

    @Test
    void lockingNeitherLeaksDescriptorsWhenRefusedNorKeepsTheLockWhenReleased() throws Exception {
        DirectorySlot s = new DirectorySlot(root);
        java.io.Closeable held = s.lock();
        long before = openDescriptors();
        for (int i = 0; i < 50; i++) {
            assertThrows(SlotLockedException.class, s::lock);
        }
        assertTrue(openDescriptors() - before < 10, "refused locks left descriptors open: " + (openDescriptors() - before));
        held.close();
        s.lock().close(); // released: it locks again
    }

    private static long openDescriptors() throws java.io.IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
