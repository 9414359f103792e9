package sush.ops.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.ops.wire.Json;
import sush.ops.auth.Authority.Revocation;
import sush.projections.id.IdException;
import sush.projections.id.KeyId;
import tools.jackson.databind.JsonNode;

/**
 * The revocations of operator keys one sled holds (issue 36): those in force, by key, and those
 * lifted ({@code iam unrevoke}), by id, so that a re-gossiped one stays lifted; kept on disk when
 * the sled keeps them, read before anything is served and written at every change. Not
 * thread-safe: the {@link Authority} holding them guards them.
 */
final class Revocations {
    /** Revocations in force, by key (issue 36: kept on disk, read before the API serves). */
    private final Map<KeyId, Revocation> revoked = new LinkedHashMap<>();
    /** Revocations lifted ({@code iam unrevoke}), by id, newest last: a re-gossiped one stays lifted. */
    private final LinkedHashMap<String, Revocation> lifted = new LinkedHashMap<>();
    /** Where the revocations are kept, when they are (the daemon's output directory). */
    private final Optional<Path> revocationsFile;

    /**
     * The revocations kept in {@code revocations}, read now; a file that does not read is an
     * {@link IOException}: a sled never serves having forgotten them.
     */
    Revocations(Optional<Path> revocations) throws IOException {
        this.revocationsFile = revocations;
        if (revocations.isPresent()) {
            loadRevocations(revocations.get());
        }
    }

    private void loadRevocations(Path file) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        try {
            JsonNode n = Json.MAPPER.readTree(Files.readString(file, StandardCharsets.UTF_8));
            for (JsonNode r : n.path("revoked")) {
                Revocation v = revocation(r);
                revoked.put(v.key(), v);
            }
            for (JsonNode r : n.path("lifted")) {
                Revocation v = revocation(r);
                lifted.put(v.id(), v);
            }
        } catch (RuntimeException | IdException e) {
            throw new IOException("the revoked operators in " + file + " do not read (" + e.getMessage() + "): fix or "
                    + "restore the file; a sled does not serve having forgotten a revocation");
        }
    }

    private static Revocation revocation(JsonNode r) throws IdException {
        if (!r.path("key").isString() || !r.path("by").isString() || !r.path("id").isString()) {
            throw new IllegalArgumentException("each entry has key, by and id");
        }
        return new Revocation(KeyId.parse(r.get("key").asString()), r.get("by").asString(), r.get("id").asString());
    }

    /** Writes the revocations (temporary file, fsync, rename, directory fsync); a failure is said, never hidden. */
    private void saveRevocations() {
        if (revocationsFile.isEmpty()) {
            return;
        }
        Path file = revocationsFile.get();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("revoked", revoked.values().stream().map(Revocations::json).toList());
        doc.put("lifted", lifted.values().stream().map(Revocations::json).toList());
        try {
            OwnerFiles.replace(file, Json.MAPPER.writeValueAsBytes(doc));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("keeping the revoked operators in " + file + " failed: " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> json(Revocation r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", r.key().codephrase());
        m.put("by", r.by());
        m.put("id", r.id());
        return m;
    }

    /**
     * Puts revocation {@code r} in force and keeps it on disk before this returns; one already
     * lifted (re-gossiped after an unrevoke) changes nothing. Returns whether it is in force.
     */
    boolean revoke(Revocation r) {
        if (lifted.containsKey(r.id()) && !r.id().isEmpty()) {
            return false;
        }
        Revocation before = revoked.put(r.key(), r);
        if (!r.equals(before)) {
            saveRevocations();
        }
        return true;
    }

    /**
     * Lifts revocation {@code lifts} of {@code key}: the key logs in again, unless a revocation
     * with another id is in force (made meanwhile); the lifted id is remembered either way.
     * Returns whether the key is no longer revoked here.
     */
    boolean unrevoke(KeyId key, String by, String lifts) {
        Revocation current = revoked.get(key);
        lifted.put(lifts, new Revocation(key, by, lifts));
        while (lifted.size() > Authority.MAX_LIFTED) {
            lifted.remove(lifted.keySet().iterator().next());
        }
        if (current != null && current.id().equals(lifts)) {
            revoked.remove(key);
        }
        saveRevocations();
        return !revoked.containsKey(key);
    }

    boolean isRevoked(KeyId key) {
        return revoked.containsKey(key);
    }

    /** The revocation of {@code key} in force, if any. */
    Optional<Revocation> revocation(KeyId key) {
        return Optional.ofNullable(revoked.get(key));
    }

    /** Every revocation in force. */
    List<Revocation> inForce() {
        return List.copyOf(revoked.values());
    }

    /** Every lifted revocation remembered, oldest first. */
    List<Revocation> lifted() {
        return List.copyOf(lifted.values());
    }
}
