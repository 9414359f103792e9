package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Bookmark;
import sush.gossip.set.NetworkId;
import sush.gossip.set.ReplicaException;

/**
 * The bookmark file (D-053): what one life keeps, the next life of the same boot reads back;
 * another boot's, another key's, a torn or altered file is not used (a fork is always safe); the
 * file has its size from the start; a file that cannot be written refuses the send.
 */
class BookmarkFileTest {
    private static final byte[] KEY = new byte[32];
    private static final NetworkId NET = NetworkId.random(Entropy.seeded(53));
    private static final Bookmark MARK = new Bookmark(NET, Id.ONE.fork()[1], Version.ZERO.tick(Id.ONE));

    @TempDir
    Path dir;

    private final List<String> notes = new ArrayList<>();

    private BookmarkFile open(Optional<byte[]> key, String boot) throws IOException {
        return BookmarkFile.open(BookmarkFile.in(dir), key, Entropy.seeded(1), boot, notes::add);
    }

    @Test
    void aLifeReadsWhatTheLastLifeOfItsBootKeptSealedOrPlain() throws Exception {
        for (Optional<byte[]> key : List.of(Optional.of(KEY), Optional.<byte[]>empty())) {
            Files.deleteIfExists(BookmarkFile.in(dir));
            BookmarkFile first = open(key, "boot-1");
            assertEquals(Optional.empty(), first.find(NET));
            first.keep(MARK);
            // No close: a kill -9 leaves the write in the page cache.
            BookmarkFile next = open(key, "boot-1");
            assertEquals(Optional.of(MARK), next.find(NET));
            assertEquals(BookmarkFile.SIZE_BYTES, Files.size(BookmarkFile.in(dir)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(BookmarkFile.in(dir))));
            first.close();
            next.close();
        }
        assertEquals(List.of(), notes);
    }

    @Test
    void anotherBootsKeysOrFormsFileIsNotUsed() throws Exception {
        BookmarkFile sealed = open(Optional.of(KEY), "boot-1");
        sealed.keep(MARK);
        assertEquals(Optional.empty(), open(Optional.of(KEY), "boot-2").find(NET), "another boot");
        assertTrue(notes.get(0).contains("earlier boot"), notes::toString);
        byte[] other = KEY.clone();
        other[0] = 1;
        assertEquals(Optional.empty(), open(Optional.of(other), "boot-1").find(NET), "another key");
        assertEquals(Optional.empty(), open(Optional.empty(), "boot-1").find(NET), "sealed, read plain");
        assertEquals(3, notes.size(), notes::toString);
        assertEquals(Optional.of(MARK), open(Optional.of(KEY), "boot-1").find(NET), "the right key and boot");
    }

    @Test
    void anAlteredByteAnywhereInTheRecordIsNotUsed() throws Exception {
        for (Optional<byte[]> key : List.of(Optional.of(KEY), Optional.<byte[]>empty())) {
            Files.deleteIfExists(BookmarkFile.in(dir));
            open(key, "boot-1").keep(MARK);
            byte[] bytes = Files.readAllBytes(BookmarkFile.in(dir));
            int length = (bytes[8] & 0xFF) << 24 | (bytes[9] & 0xFF) << 16 | (bytes[10] & 0xFF) << 8 | bytes[11] & 0xFF;
            for (int at = 12 + 1 + 6 + 1; at < 12 + length; at += 7) {
                byte[] altered = bytes.clone();
                altered[at] ^= 0x10;
                Files.write(BookmarkFile.in(dir), altered);
                int at2 = at;
                int said = notes.size();
                assertEquals(Optional.empty(), open(key, "boot-1").find(NET), () -> "byte " + at2);
                assertEquals(said + 1, notes.size(), () -> "byte " + at2 + " is said unreadable: " + notes);
                assertTrue(notes.get(notes.size() - 1).contains("unreadable"), notes::toString);
            }
            byte[] cut = Arrays.copyOf(bytes, 12 + length / 2);
            Files.write(BookmarkFile.in(dir), cut);
            assertEquals(Optional.empty(), open(key, "boot-1").find(NET), "torn");
        }
    }

    @Test
    void bookmarksTooLargeForTheFileVoidItAndTheNextLifeForks() throws Exception {
        // A file of 256 bytes: one bookmark fits, one of a scattered identity does not.
        BookmarkFile f = BookmarkFile.open(BookmarkFile.in(dir), Optional.of(KEY), Entropy.seeded(1), "boot-1",
                notes::add, 256);
        f.keep(MARK);
        assertFalse(f.voided());
        List<Id> shares = Id.ONE.fork(1 << 10);
        Id scattered = Id.ZERO;
        for (int i = 0; i < shares.size(); i += 3) {
            scattered = scattered.join(shares.get(i));
        }
        f.keep(new Bookmark(NET, scattered, Version.ZERO));
        assertTrue(f.voided(), "over 256 bytes");
        assertTrue(notes.get(notes.size() - 1).contains("exceed"), notes::toString);
        f.keep(MARK);
        assertEquals(Optional.empty(), open(Optional.of(KEY), "boot-1").find(NET), "voided: the next life forks");
    }

    @Test
    void aFileThatCannotBeWrittenRefusesTheSend() throws Exception {
        BookmarkFile f = open(Optional.of(KEY), "boot-1");
        f.keep(MARK);
        f.close();
        ReplicaException e = assertThrows(ReplicaException.class,
                () -> f.keep(new Bookmark(NET, MARK.identity(), Version.ZERO.tick(Id.ONE).tick(Id.ONE))));
        assertEquals(ReplicaException.Kind.IDENTITY_NOT_KEPT, e.kind());
        assertTrue(e.getMessage().contains("cannot void a stale bookmark"), e.getMessage());
        assertTrue(e.getMessage().contains("; after "), "the write's own failure is said too: " + e.getMessage());
        assertTrue(notes.stream().anyMatch(n -> n.contains("write failed")), notes::toString);
        assertFalse(f.voided(), "the file still says the last send it kept");
        assertEquals(Optional.of(MARK), open(Optional.of(KEY), "boot-1").find(NET));
    }

    @Test
    void thisKernelHasABootId() {
        Optional<String> boot = BookmarkFile.bootId();
        assertTrue(boot.isPresent(), "Linux names each boot");
        assertEquals(36, boot.get().length(), boot.get());
    }

    @Test
    void aShortFileIsGrownToItsSize() throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(BookmarkFile.in(dir).toFile(), "rw")) {
            raf.write(new byte[] {1, 2, 3});
        }
        BookmarkFile f = open(Optional.empty(), "boot-1");
        assertEquals(BookmarkFile.SIZE_BYTES, Files.size(BookmarkFile.in(dir)));
        assertEquals(Optional.empty(), f.find(NET));
    }
}
