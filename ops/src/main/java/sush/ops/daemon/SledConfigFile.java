package sush.ops.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import sush.ops.wire.Json;
import sush.pipeline.sled.SledConfig;
import sush.projections.fold.Ordering;
import sush.projections.targets.Sled;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush daemon --config FILE} (issue 16): one sled's settings as JSON, the fields of the
 * rack file's sled entry plus what the rack file says for every sled (example: {@code
 * ops/dist/sled.example.json}). Relative paths are taken from the file's directory. Every field
 * is checked; an unknown one is an error, never ignored. {@code "cubbies"} names every sled of
 * the rack, this one included, with its cubby: a sled forgets what the rack settled (issue 39,
 * D-057) only when it knows every sled that must settle it, and which jobs target each.
 */
public final class SledConfigFile {
    static final Set<String> REQUIRED = Set.of("baseboard", "cubby", "gossip", "api", "m2", "output", "trust",
            "operators");
    static final Set<String> KNOWN = Set.of("baseboard", "cubby", "gossip", "api", "m2", "output", "trust",
            "operators", "peers", "ordering", "tls", "journal_key", "insecure_gossip", "cubbies");

    private SledConfigFile() {
    }

    public static Daemon.Settings read(Path file) throws RackFile.RackFileException {
        JsonNode n = tree(file);
        Daemon.Settings s = settings(n, file);
        rack(n, s, file);
        return s;
    }

    /**
     * Watermarks and forgetting over the rack {@code "cubbies"} names (D-057), or empty when the
     * file names none.
     */
    public static Optional<SledConfig.Settling> settling(Path file) throws RackFile.RackFileException {
        JsonNode n = tree(file);
        return rack(n, settings(n, file), file)
                .map(sleds -> new SledConfig.Settling(sleds, RackFile.WATERMARK_EVERY));
    }

    /** Every sled of the rack with its cubby, checked against this sled's own and its peers'. */
    private static Optional<List<Sled>> rack(JsonNode n, Daemon.Settings s, Path file) throws RackFile.RackFileException {
        if (!n.has("cubbies")) {
            return Optional.empty();
        }
        JsonNode c = n.get("cubbies");
        String where = "sled config " + file + ": \"cubbies\" ";
        if (!c.isObject()) {
            throw new RackFile.RackFileException(where + "maps every sled's baseboard (this one's too) to its cubby");
        }
        List<Sled> sleds = new ArrayList<>();
        Set<Integer> taken = new TreeSet<>();
        for (String board : c.propertyNames()) {
            JsonNode v = c.get(board);
            if (!v.isIntegralNumber() || v.asInt() < 0 || v.asInt() > 31 || !taken.add(v.asInt())) {
                throw new RackFile.RackFileException(where + "gives " + board + " " + v + ": each sled a cubby from 0 to "
                        + "31 of its own");
            }
            try {
                sleds.add(new Sled(board, v.asInt()));
            } catch (IllegalArgumentException e) {
                throw new RackFile.RackFileException(where + "names " + board + ": " + e.getMessage());
            }
        }
        if (!sleds.contains(new Sled(s.baseboard(), s.cubby()))) {
            throw new RackFile.RackFileException(where + "must name this sled, " + s.baseboard() + ", in cubby "
                    + s.cubby());
        }
        for (String peer : s.identities().values()) {
            if (sleds.stream().noneMatch(x -> x.baseboard().equals(peer))) {
                throw new RackFile.RackFileException(where + "does not name peer " + peer);
            }
        }
        return Optional.of(List.copyOf(sleds));
    }

    private static JsonNode tree(Path file) throws RackFile.RackFileException {
        JsonNode n;
        try {
            n = Json.MAPPER.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new RackFile.RackFileException("cannot read sled config " + file + ": " + e.getMessage());
        } catch (JacksonException e) {
            throw new RackFile.RackFileException("sled config " + file + " is not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new RackFile.RackFileException("sled config " + file + " is not a JSON object");
        }
        return n;
    }

    private static Daemon.Settings settings(JsonNode n, Path file) throws RackFile.RackFileException {
        for (String f : n.propertyNames()) {
            if (!KNOWN.contains(f)) {
                throw new RackFile.RackFileException("sled config " + file + ": unknown field \"" + f + "\" (known: "
                        + new TreeSet<>(KNOWN) + ")");
            }
        }
        for (String f : REQUIRED) {
            if (!n.has(f)) {
                throw new RackFile.RackFileException("sled config " + file + " lacks \"" + f + "\"");
            }
        }
        Path dir = file.toAbsolutePath().getParent();
        List<Path> m2 = paths(n.get("m2"), "m2", dir, file);
        if (m2.size() != 2) {
            throw new RackFile.RackFileException("sled config " + file + ": \"m2\" names exactly two slot directories");
        }
        Map<String, String> peers = new LinkedHashMap<>();
        Map<String, String> identities = new LinkedHashMap<>();
        if (n.has("peers")) {
            if (!n.get("peers").isObject()) {
                throw new RackFile.RackFileException("sled config " + file + ": \"peers\" maps each peer's baseboard "
                        + "to its gossip host:port");
            }
            for (String board : n.get("peers").propertyNames()) {
                String addr = text(n.get("peers"), board, file);
                peers.put(addr, addr);
                identities.put(addr, board);
            }
        }
        Optional<Daemon.TlsFiles> tls = Optional.empty();
        if (n.has("tls")) {
            JsonNode t = n.get("tls");
            tls = Optional.of(new Daemon.TlsFiles(path(t, "ca", dir, file), path(t, "cert", dir, file),
                    path(t, "key", dir, file), t.has("revoked") ? Optional.of(path(t, "revoked", dir, file))
                            : Optional.empty()));
        } else if (!n.path("insecure_gossip").asBoolean(false)) {
            throw new RackFile.RackFileException("sled config " + file + " names no \"tls\" (ca, cert, key, revoked); "
                    + "\"insecure_gossip\": true gossips in plain TCP, for tests only");
        }
        Ordering ordering;
        try {
            ordering = n.has("ordering") ? Ordering.parse(text(n, "ordering", file)) : Ordering.SIGNED;
        } catch (IllegalArgumentException e) {
            throw new RackFile.RackFileException("sled config " + file + ": " + e.getMessage());
        }
        JsonNode cubby = n.get("cubby");
        if (!cubby.isIntegralNumber() || cubby.asInt() < 0 || cubby.asInt() > 31) {
            throw new RackFile.RackFileException("sled config " + file + ": \"cubby\" is a number from 0 to 31");
        }
        return new Daemon.Settings(text(n, "baseboard", file), cubby.asInt(), text(n, "gossip", file),
                text(n, "api", file), m2, path(n, "output", dir, file), paths(n.get("trust"), "trust", dir, file),
                n.has("journal_key") ? Optional.of(path(n, "journal_key", dir, file)) : Optional.empty(), peers, tls,
                identities, path(n, "operators", dir, file), ordering);
    }

    private static String text(JsonNode n, String field, Path file) throws RackFile.RackFileException {
        JsonNode v = n.get(field);
        if (v == null || !v.isString() || v.stringValue().isBlank()) {
            throw new RackFile.RackFileException("sled config " + file + ": \"" + field + "\" is not text");
        }
        return v.stringValue();
    }

    private static Path path(JsonNode n, String field, Path dir, Path file) throws RackFile.RackFileException {
        return dir.resolve(text(n, field, file));
    }

    private static List<Path> paths(JsonNode n, String field, Path dir, Path file) throws RackFile.RackFileException {
        if (n == null || !n.isArray()) {
            throw new RackFile.RackFileException("sled config " + file + ": \"" + field + "\" is a list of paths");
        }
        List<Path> out = new ArrayList<>();
        for (JsonNode p : n) {
            if (!p.isString()) {
                throw new RackFile.RackFileException("sled config " + file + ": \"" + field + "\" holds a non-path");
            }
            out.add(dir.resolve(p.stringValue()));
        }
        return List.copyOf(out);
    }
}
