package sush.ops.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

import sush.ops.Json;
import sush.ops.SignedRequests;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;

/**
 * The grants this operator's {@code sush session start} obtained (ordered-sessions.md section
 * 7): {@code grants/SESSION.json} per session and {@code grants/last.json}, in the CLI's state
 * directory, mode 0600. A rack keeps no gossip across a whole-rack cold boot, so the kept grant
 * is the only way its session becomes active again ({@code sush session resume}); each file is
 * therefore written whole and durable (temp file, fsync, rename, directory fsync) or not at all.
 */
final class GrantStore {
    static final String LAST = "last.json";
    /** Bound on a grant file read back: a grant's JSON is well under 1 KiB. */
    static final int MAX_FILE_BYTES = 16 * 1024;
    private final Path dir;

    GrantStore(Path dir) {
        this.dir = dir;
    }

    /** The store of this user's CLI: {@code grants/} in {@link Global#stateDir()}. */
    static GrantStore ofCli() {
        return new GrantStore(Global.stateDir().resolve("grants"));
    }

    Path fileOf(SessionId session) {
        return dir.resolve(session.codephrase() + ".json");
    }

    /** Keeps {@code g} as its session's file. */
    void keep(SignedGrant g) throws Client.Failure {
        write(fileOf(g.grant().session()), g);
    }

    /** Makes {@code g} the grant {@code session resume} re-submits when no session is named. */
    void markLast(SignedGrant g) throws Client.Failure {
        write(dir.resolve(LAST), g);
    }

    /** Drops the file of a grant no sled took (refused): nothing can resume it. */
    void forget(SessionId session) {
        try {
            Files.deleteIfExists(fileOf(session));
        } catch (IOException e) {
            // A leftover file of a refused grant is only refused again if resumed.
        }
    }

    SignedGrant last() throws Client.Failure {
        return read(dir.resolve(LAST));
    }

    SignedGrant of(SessionId session) throws Client.Failure {
        SignedGrant g = read(fileOf(session));
        if (!g.grant().session().equals(session)) {
            throw new Client.Failure(2, "bad-grant-file", fileOf(session) + " holds the grant of session "
                    + g.grant().session().codephrase() + ", not " + session.codephrase());
        }
        return g;
    }

    private SignedGrant read(Path file) throws Client.Failure {
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new Client.Failure(2, "bad-grant-file", file + " is larger than a grant (" + MAX_FILE_BYTES
                        + " bytes at most)");
            }
            return SignedRequests.grantFromJson(Json.MAPPER.readTree(Files.readString(file, StandardCharsets.UTF_8)));
        } catch (NoSuchFileException e) {
            throw new Client.Failure(4, "no-grant", "no grant is kept in " + file + ": only a session started with "
                    + "`sush session start` in a signed rack (as this user, on this machine) can be resumed");
        } catch (IOException | RuntimeException | SignedRequests.BadRequest e) {
            throw new Client.Failure(2, "bad-grant-file", "cannot read the grant in " + file + ": " + e.getMessage());
        }
    }

    private void write(Path file, SignedGrant g) throws Client.Failure {
        byte[] bytes = Json.MAPPER.writeValueAsString(SignedRequests.grantToJson(g)).getBytes(StandardCharsets.UTF_8);
        Path temp = null;
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                    "rwx------")));
            // A temp file of its own: two commands keeping grants at once never share one.
            temp = Files.createTempFile(dir, ".grant-", ".tmp", PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
        } catch (IOException | UnsupportedOperationException e) {
            deleteQuietly(temp);
            throw new Client.Failure(1, "grant-not-kept", "cannot keep the grant in " + file + ": " + e);
        }
    }

    private static void deleteQuietly(Path temp) {
        if (temp == null) {
            return;
        }
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            // Only a stray temp file is left.
        }
    }
}
