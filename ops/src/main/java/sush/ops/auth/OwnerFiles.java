package sush.ops.auth;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** The sled's own small state files (revoked operators, signer-trust changes): replaced whole, durably. */
final class OwnerFiles {
    private OwnerFiles() {
    }

    /**
     * Replaces {@code file} with {@code bytes}: a temporary file (0600, the owner's alone) written
     * and fsynced, renamed over it atomically, then the directory fsynced. A crash leaves the old
     * file or the new one, never a part.
     */
    static void replace(Path file, byte[] bytes) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        try (FileChannel ch = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(file.getParent())) {
            dir.force(true);
        } catch (IOException e) {
            // some file systems cannot sync a directory: the rename itself is atomic
        }
    }
}
