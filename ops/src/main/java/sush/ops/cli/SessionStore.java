package sush.ops.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonInclude;

import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SledVersion;
import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.ClientChain;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * What this operator's client keeps of its sessions, filed per rack (issue 34,
 * ordered-sessions.md sections 7 and 9): in the user's state directory ({@link Global#stateDir()},
 * never a cache), under the rack's id as its sleds name it ({@code rack_id}, the CA's key id),
 * {@code racks/RACK/sessions/SESSION/} holds {@code grant.json}, the grant (written whole: temp
 * file, fsync, rename, directory fsync), and {@code chain.jsonl}, every request, burn and stop
 * the client sent in the session, one JSON line each, appended and fsynced before it leaves.
 * Owner-only (0700 directories, 0600 files). It is the operator's copy of what it signed: it
 * holds job text, on the operator's machine, never on a sled's M.2.
 */
final class SessionStore {
    static final String GRANT = "grant.json";
    static final String CHAIN = "chain.jsonl";
    /** Bound on a grant file read back: a grant's JSON is well under 1 KiB. */
    static final int MAX_GRANT_BYTES = 16 * 1024;
    /** Bound on a kept chain read back (ClientChain.MAX_ENTRIES requests of at most 80 KiB would be more; a session that long starts anew). */
    static final long MAX_CHAIN_BYTES = 256L * 1024 * 1024;
    private final Path rackDir;

    SessionStore(Path rackDir) {
        this.rackDir = rackDir;
    }

    /** The store, in {@code g}'s state directory, of the rack {@code c} talks to (its sled says which rack it is). */
    static SessionStore of(Global g, Client c) throws Client.Failure {
        String rack = Said.text(c.get("/version", SledVersion.class).rackId());
        if (rack.isEmpty() || !rack.matches("[a-z0-9-]{1,200}")) {
            throw new Client.Failure(2, "no-rack-id", "the sled at " + c.url() + " names no rack id (a sled older "
                    + "than issue 34?): the client cannot tell which rack's sessions it keeps");
        }
        return new SessionStore(g.stateDir().resolve("racks").resolve(rack));
    }

    Path rackDir() {
        return rackDir;
    }

    Path sessionDir(SessionId s) {
        return rackDir.resolve("sessions").resolve(s.codephrase());
    }

    Path grantFile(SessionId s) {
        return sessionDir(s).resolve(GRANT);
    }

    // ---- Grants -------------------------------------------------------------------------------

    /** Keeps {@code g} (before it leaves: an answer lost on the way back may hide a grant already gossiped). */
    void keepGrant(SignedGrant g) throws Client.Failure {
        byte[] bytes = Json.MAPPER.writeValueAsString(SignedRequests.grantToJson(g)).getBytes(StandardCharsets.UTF_8);
        Path dir = sessionDir(g.grant().session());
        directories(dir);
        writeWhole(dir.resolve(GRANT), bytes);
    }

    /** Drops a session no sled took (its grant was refused): nothing can resume it. */
    void forgetSession(SessionId s) {
        Path dir = sessionDir(s);
        for (String f : List.of(GRANT, CHAIN)) {
            try {
                Files.deleteIfExists(dir.resolve(f));
            } catch (IOException e) {
                // A leftover file of a refused grant is only refused again if resumed.
            }
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // Not empty: something else was kept there; leave it.
        }
    }

    SignedGrant grant(SessionId s) throws Client.Failure {
        Path file = grantFile(s);
        try {
            if (Files.size(file) > MAX_GRANT_BYTES) {
                throw new Client.Failure(2, "bad-grant-file", file + " is larger than a grant (" + MAX_GRANT_BYTES
                        + " bytes at most)");
            }
            SignedGrant g = SignedRequests.grantFromJson(Json.MAPPER.readTree(Files.readString(file,
                    StandardCharsets.UTF_8)));
            if (!g.grant().session().equals(s)) {
                throw new Client.Failure(2, "bad-grant-file", file + " holds the grant of session "
                        + g.grant().session().codephrase() + ", not " + s.codephrase());
            }
            return g;
        } catch (NoSuchFileException e) {
            throw new Client.Failure(4, "no-grant", "no grant of session " + s.codephrase() + " is kept in " + rackDir
                    + ": only a session started with `sush session start` in this rack (as this user, on this "
                    + "machine) can be resumed");
        } catch (IOException | RuntimeException | SignedRequests.BadRequest e) {
            throw new Client.Failure(2, "bad-grant-file", "cannot read the grant in " + file + ": " + e.getMessage());
        }
    }

    /** The newest grant kept for this rack, by the signer's order (epoch, then signer, then session). */
    SignedGrant newestGrant() throws Client.Failure {
        Optional<SignedGrant> newest = Optional.empty();
        Path sessions = rackDir.resolve("sessions");
        if (Files.isDirectory(sessions)) {
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(sessions)) {
                for (Path d : dirs) {
                    if (!Files.exists(d.resolve(GRANT))) {
                        continue;
                    }
                    SignedGrant g = grant(sessionId(d.getFileName().toString()));
                    if (newest.isEmpty() || g.grant().rank().newerThan(newest.get().grant().rank())) {
                        newest = Optional.of(g);
                    }
                }
            } catch (IOException e) {
                throw new Client.Failure(1, "state-unreadable", "cannot list " + sessions + ": " + e.getMessage());
            }
        }
        return newest.orElseThrow(() -> new Client.Failure(4, "no-grant", "no grant is kept for this rack in "
                + rackDir + ": only a session started with `sush session start` in this rack (as this user, on "
                + "this machine) can be resumed"));
    }

    private static SessionId sessionId(String phrase) throws Client.Failure {
        try {
            return SessionId.parse(phrase);
        } catch (IdException e) {
            throw new Client.Failure(2, "bad-state", "not a session directory: " + phrase);
        }
    }

    // ---- Chains -------------------------------------------------------------------------------

    /** Session {@code s}'s kept chain, read back (empty when nothing was kept yet). */
    Kept chain(SessionId s) throws Client.Failure {
        Path file = sessionDir(s).resolve(CHAIN);
        List<ClientChain.Entry> entries = new ArrayList<>();
        long length = 0;
        if (Files.exists(file)) {
            byte[] all;
            try {
                if (Files.size(file) > MAX_CHAIN_BYTES) {
                    throw new Client.Failure(2, "bad-chain-file", file + " is over " + MAX_CHAIN_BYTES + " bytes");
                }
                all = Files.readAllBytes(file);
            } catch (IOException e) {
                throw new Client.Failure(1, "state-unreadable", "cannot read " + file + ": " + e.getMessage());
            }
            int start = 0;
            for (int i = 0; i < all.length; i++) {
                if (all[i] == '\n') {
                    entries.add(entry(file, new String(all, start, i - start, StandardCharsets.UTF_8)));
                    start = i + 1;
                }
            }
            // A last line without its newline was torn by a crash: it was never acknowledged, so
            // what it held never left either; it is dropped (and overwritten by the next append).
            length = start;
        }
        try {
            return new Kept(file, ClientChain.of(s, entries), length);
        } catch (RuntimeException e) {
            throw new Client.Failure(2, "bad-chain-file", file + ": " + e.getMessage());
        }
    }

    /**
     * One line of a kept chain's file: a signed request (its JSON as a request body is, read as
     * strictly), or the position of a burn, or the job of a stop, or a jump over positions the
     * rack forgot ({@code [from, to]}).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private record Line(JsonNode request, String burn, String stop, List<String> jump) {
    }

    private static ClientChain.Entry entry(Path file, String line) throws Client.Failure {
        try {
            Line n = Json.read(Json.MAPPER.readTree(line), Line.class);
            if (n.request() != null) {
                return new ClientChain.Entry.Request(SignedRequests.fromJson(n.request()));
            } else if (n.burn() != null) {
                return new ClientChain.Entry.Burn(JobId.parse(n.burn()));
            } else if (n.stop() != null) {
                return new ClientChain.Entry.Stop(JobId.parse(n.stop()));
            } else if (n.jump() != null && n.jump().size() == 2) {
                return new ClientChain.Entry.Jump(JobId.parse(n.jump().get(0)), JobId.parse(n.jump().get(1)));
            }
            throw new IllegalArgumentException("neither a request, a burn, a stop nor a jump");
        } catch (IdException | SignedRequests.BadRequest | RuntimeException e) {
            throw new Client.Failure(2, "bad-chain-file", "cannot read " + file + ": " + e.getMessage());
        }
    }

    private static String line(ClientChain.Entry e) {
        Line l;
        if (e instanceof ClientChain.Entry.Request) {
            l = new Line(Json.MAPPER.valueToTree(SignedRequests.toJson(((ClientChain.Entry.Request) e).job())), null,
                    null, null);
        } else if (e instanceof ClientChain.Entry.Burn) {
            l = new Line(null, ((ClientChain.Entry.Burn) e).position().codephrase(), null, null);
        } else if (e instanceof ClientChain.Entry.Jump) {
            ClientChain.Entry.Jump j = (ClientChain.Entry.Jump) e;
            l = new Line(null, null, null, List.of(j.from().codephrase(), j.to().codephrase()));
        } else {
            l = new Line(null, null, ((ClientChain.Entry.Stop) e).job().codephrase(), null);
        }
        return Json.MAPPER.writeValueAsString(l) + "\n";
    }

    /** A session's kept chain and its file: every entry is on disk before the caller sends it. */
    final class Kept {
        private final Path file;
        private final ClientChain chain;
        /** The file's length of whole lines; what {@link #forgetLast} truncates back to. */
        private long length;
        private long before = -1;

        Kept(Path file, ClientChain chain, long length) {
            this.file = file;
            this.chain = chain;
            this.length = length;
        }

        ClientChain chain() {
            return chain;
        }

        /** Keeps the request signed at the tip. */
        void keep(SignedJob job) throws Client.Failure {
            chain.keep(job);
            append(new ClientChain.Entry.Request(job));
        }

        void keepBurn(JobId position) throws Client.Failure {
            chain.keepBurn(position);
            append(new ClientChain.Entry.Burn(position));
        }

        void keepStop(JobId job) throws Client.Failure {
            chain.keepStop(job);
            append(new ClientChain.Entry.Stop(job));
        }

        /** The last entry never left (a sled refused it outright): it is dropped, here and on disk. */
        void forgetLast() throws Client.Failure {
            if (before < 0) {
                return;
            }
            chain.forgetLast();
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(before);
                ch.force(true);
            } catch (IOException e) {
                throw new Client.Failure(1, "chain-not-kept", "cannot drop the refused entry from " + file + ": " + e);
            }
            length = before;
            before = -1;
        }

        /**
         * Extends the kept chain by what the sleds hold after its tip, and keeps what was added.
         * A fork (two requests at one position) is a typed failure naming both.
         */
        int extend(Collection<ClientChain.Held> sleds) throws Client.Failure {
            int had = chain.entries().size();
            int added;
            try {
                added = chain.extend(sleds);
            } catch (ClientChain.Fork f) {
                throw new Client.Failure(2, "fork", f.getMessage());
            }
            List<ClientChain.Entry> all = chain.entries();
            for (ClientChain.Entry e : all.subList(had, all.size())) {
                write(e);
            }
            before = -1; // an extension is never a refused entry of ours
            return added;
        }

        private void append(ClientChain.Entry e) throws Client.Failure {
            long at = length;
            write(e);
            before = at;
        }

        private void write(ClientChain.Entry e) throws Client.Failure {
            byte[] bytes = line(e).getBytes(StandardCharsets.UTF_8);
            try {
                boolean fresh = !Files.exists(file);
                directories(file.getParent());
                if (fresh) {
                    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                            "rw-------")));
                }
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    // Over a torn last line, if a crash left one: whole lines only.
                    ch.truncate(length);
                    ByteBuffer b = ByteBuffer.wrap(bytes);
                    long pos = length;
                    while (b.hasRemaining()) {
                        pos += ch.write(b, pos);
                    }
                    ch.force(true);
                }
                if (fresh) {
                    forceDirectory(file.getParent());
                }
                length += bytes.length;
            } catch (IOException | UnsupportedOperationException ex) {
                throw new Client.Failure(1, "chain-not-kept", "cannot keep the session's chain in " + file + ": " + ex
                        + " (nothing was sent)");
            }
        }
    }

    // ---- Files --------------------------------------------------------------------------------

    private static void directories(Path dir) throws Client.Failure {
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                    "rwx------")));
        } catch (IOException | UnsupportedOperationException e) {
            throw new Client.Failure(1, "state-unwritable", "cannot make " + dir + ": " + e);
        }
    }

    private static void forceDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** {@code file} holds {@code bytes} whole or is as it was: temp file, fsync, rename, directory fsync. */
    private static void writeWhole(Path file, byte[] bytes) throws Client.Failure {
        Path temp = null;
        try {
            temp = Files.createTempFile(file.getParent(), ".grant-", ".tmp", PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            forceDirectory(file.getParent());
        } catch (IOException | UnsupportedOperationException e) {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // Only a stray temp file is left.
                }
            }
            throw new Client.Failure(1, "grant-not-kept", "cannot keep the grant in " + file + ": " + e);
        }
    }
}
