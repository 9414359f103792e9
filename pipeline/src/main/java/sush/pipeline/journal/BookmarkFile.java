package sush.pipeline.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import sush.gossip.Entropy;
import sush.gossip.set.Bookmark;
import sush.gossip.set.Bookmarks;
import sush.gossip.set.IdentityKeeper;
import sush.gossip.set.NetworkId;
import sush.gossip.set.ReplicaException;
import sush.gossip.wire.MalformedException;

/**
 * A sled's identity bookmarks in one file beside its journal (bounded-gossip.md section 4,
 * D-053): sealed with the journal key when there is one, written in place before every send
 * becomes visible, and trusted only within the kernel boot that wrote it.
 *
 * <p>Why no fsync: a daemon killed with {@code kill -9} leaves its writes in the page cache, which
 * the next life reads; only a power cut or a reboot loses them, and a bookmark from another boot
 * ({@code /proc/sys/kernel/random/boot_id}) is never used (it may predate sends its peers hold).
 * The file has a fixed size, made at open, so a write never needs a new block: a full disk does
 * not stop sends. A write that fails voids the file (a life with no bookmark forks, which is
 * always safe); a file it cannot void refuses the send ({@code IDENTITY_NOT_KEPT}). Bookmarks too
 * large for the file void it too. Thread-safe.
 *
 * <pre>
 * "SUSHBMK1" | u32 length | body: boot id (u8 length, ASCII) | form u8 (0 plain, 1 sealed) | data
 * plain data: bookmarks | crc32c u32 of everything before it in the body
 * sealed data: AES-256-GCM of the bookmarks, the boot id as associated data
 * </pre>
 */
public final class BookmarkFile implements IdentityKeeper {
    /** The file's fixed size. */
    public static final int SIZE_BYTES = 64 * 1024;
    private static final byte[] MAGIC = "SUSHBMK1".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = MAGIC.length + 4;
    private static final String NAME = "identity.bookmark";

    private final Path file;
    private final FileChannel channel;
    private final byte[] bootId;
    private final Optional<Sealer> sealer;
    private final Bookmarks kept;
    /** The file's size ({@link #SIZE_BYTES}; smaller in tests). */
    private final int size;
    /** Where what this file had to give up on is said (the daemon's log). */
    private final Consumer<String> notes;
    private boolean voided;

    private BookmarkFile(Path file, FileChannel channel, byte[] bootId, Optional<Sealer> sealer, Bookmarks kept,
            Consumer<String> notes, int size) {
        this.notes = notes;
        this.size = size;
        this.file = file;
        this.channel = channel;
        this.bootId = bootId;
        this.sealer = sealer;
        this.kept = kept;
    }

    /** Where a sled whose outputs are in {@code output} keeps its bookmarks. */
    public static Path in(Path output) {
        return output.resolve(NAME);
    }

    /**
     * Opens (making it at its fixed size if needed) the bookmark file and reads what an earlier
     * life of this boot kept there. Anything unreadable (another boot's, another key's, torn,
     * altered) is said to {@code notes} and left unused: the sled forks a fresh identity, as
     * without a file.
     */
    public static BookmarkFile open(Path file, Optional<byte[]> key, Entropy entropy, String bootId,
            Consumer<String> notes) throws IOException {
        return open(file, key, entropy, bootId, notes, SIZE_BYTES);
    }

    /** {@link #open(Path, Optional, Entropy, String, Consumer)} of a file of {@code size} bytes. */
    static BookmarkFile open(Path file, Optional<byte[]> key, Entropy entropy, String bootId, Consumer<String> notes,
            int size) throws IOException {
        byte[] boot = bootId.getBytes(StandardCharsets.US_ASCII);
        if (boot.length == 0 || boot.length > 255) {
            throw new IllegalArgumentException("a boot id of 1 to 255 characters");
        }
        if (!Files.exists(file)) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            Optional<Sealer> sealer = key.map(k -> new Sealer(k, entropy));
            byte[] old = new byte[(int) Math.min(channel.size(), size)];
            channel.read(ByteBuffer.wrap(old), 0);
            Bookmarks kept = read(old, boot, sealer, file, notes);
            if (channel.size() != size) {
                channel.truncate(size);
                channel.write(ByteBuffer.wrap(new byte[size - old.length]), old.length);
                channel.force(true);
            }
            return new BookmarkFile(file, channel, boot, sealer, kept, notes, size);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static Bookmarks read(byte[] bytes, byte[] boot, Optional<Sealer> sealer, Path file,
            Consumer<String> notes) {
        if (bytes.length < HEADER || !Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC)) {
            return new Bookmarks();
        }
        int length = ByteBuffer.wrap(bytes, MAGIC.length, 4).getInt();
        if (length == 0) {
            return new Bookmarks();
        }
        try {
            if (length < 2 || length > bytes.length - HEADER) {
                throw new MalformedException(MalformedException.Reason.OUT_OF_RANGE, "length " + length);
            }
            byte[] body = Arrays.copyOfRange(bytes, HEADER, HEADER + length);
            int bootLength = body[0] & 0xFF;
            if (1 + bootLength + 1 > body.length) {
                throw new MalformedException(MalformedException.Reason.TRUNCATED, "boot id");
            }
            if (!Arrays.equals(Arrays.copyOfRange(body, 1, 1 + bootLength), boot)) {
                notes.accept(file + ": kept in an earlier boot, not used (writes may have been lost with it); "
                        + "this life forks a fresh identity");
                return new Bookmarks();
            }
            int form = body[1 + bootLength];
            byte[] data = Arrays.copyOfRange(body, 2 + bootLength, body.length);
            if (form == 1 && sealer.isPresent()) {
                return Bookmarks.fromBytes(sealer.get().open(boot, data));
            }
            if (form == 0 && sealer.isEmpty() && data.length >= 4) {
                int crc = ByteBuffer.wrap(data, data.length - 4, 4).getInt();
                if (crc != crc(body, body.length - 4)) {
                    throw new MalformedException(MalformedException.Reason.INVALID, "checksum");
                }
                return Bookmarks.fromBytes(Arrays.copyOf(data, data.length - 4));
            }
            throw new MalformedException(MalformedException.Reason.INVALID,
                    form == 1 ? "sealed, and no journal key given" : "plain, and a journal key given");
        } catch (MalformedException | JournalException e) {
            notes.accept(file + ": unreadable (" + e.getMessage() + "), not used: this life forks a fresh identity");
            return new Bookmarks();
        }
    }

    private static int crc(byte[] bytes, int length) {
        CRC32C c = new CRC32C();
        c.update(bytes, 0, length);
        return (int) c.getValue();
    }

    @Override
    public synchronized Optional<Bookmark> find(NetworkId network) {
        return kept.find(network);
    }

    @Override
    public synchronized void keep(Bookmark bookmark) {
        kept.keep(bookmark);
        if (voided) {
            return;
        }
        byte[] record = record(kept.toBytes());
        if (record.length > size) {
            notes.accept(file + ": bookmarks of " + record.length + " bytes exceed the file's " + size
                    + ": voided, the next life forks");
            voidFile(null);
            return;
        }
        try {
            write(record);
        } catch (IOException e) {
            notes.accept(file + ": write failed (" + e.getMessage() + "): voided, the next life forks");
            voidFile(e);
        }
    }

    private byte[] record(byte[] plain) {
        ByteBuffer body = ByteBuffer.allocate(2 + bootId.length + plain.length + 64);
        body.put((byte) bootId.length).put(bootId);
        if (sealer.isPresent()) {
            body.put((byte) 1).put(sealer.get().seal(bootId, plain));
        } else {
            body.put((byte) 0).put(plain);
            body.putInt(crc(body.array(), body.position()));
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER + body.position());
        out.put(MAGIC).putInt(body.position()).put(body.array(), 0, body.position());
        return out.array();
    }

    private void write(byte[] record) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(record);
        long at = 0;
        while (b.hasRemaining()) {
            at += channel.write(b, at);
        }
    }

    /** No bookmark from here on: the length says so; one that cannot be said refuses the send. */
    private void voidFile(IOException cause) {
        try {
            write(ByteBuffer.allocate(HEADER).put(MAGIC).putInt(0).array());
            voided = true;
        } catch (IOException e) {
            throw new ReplicaException(ReplicaException.Kind.IDENTITY_NOT_KEPT, file + ": cannot void a stale "
                    + "bookmark (" + e.getMessage() + (cause == null ? "" : "; after " + cause.getMessage()) + ")");
        }
    }

    /** Whether this file stopped keeping (a failed write or bookmarks over its size): the next life forks. */
    public synchronized boolean voided() {
        return voided;
    }

    public synchronized void close() throws IOException {
        channel.close();
    }

    /** This machine's kernel boot id, or empty where the kernel gives none (then no file is kept). */
    public static Optional<String> bootId() {
        try {
            return Files.readAllLines(Path.of("/proc/sys/kernel/random/boot_id")).stream().findFirst()
                    .map(String::trim).filter(s -> !s.isEmpty());
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
