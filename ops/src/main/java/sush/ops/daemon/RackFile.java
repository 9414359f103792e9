package sush.ops.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.ops.Json;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The rack file (interfaces.md): every sled's baseboard, cubby, gossip and API addresses, M.2
 * slot directories, output directory and optional peer list; the trusted signer keys.
 */
public record RackFile(List<SledEntry> sleds, List<Path> trust) {
    /** One sled of the rack. {@code peers} empty means every other sled. */
    public record SledEntry(String baseboard, int cubby, String gossip, String api, List<Path> m2, Path output,
            Optional<List<String>> peers) {
    }

    /** A rack file that cannot be used, with a one-line reason. */
    public static final class RackFileException extends Exception {
        private static final long serialVersionUID = 1L;

        public RackFileException(String message) {
            super(message);
        }
    }

    public static RackFile read(Path file) throws RackFileException {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new RackFileException("cannot read rack file " + file + ": " + e.getMessage());
        } catch (JacksonException e) {
            throw new RackFileException("rack file " + file + " is not JSON: " + e.getOriginalMessage());
        }
        Path dir = file.toAbsolutePath().getParent();
        if (root == null || !root.has("sleds") || !root.get("sleds").isArray()) {
            throw new RackFileException("rack file " + file + " has no \"sleds\" list");
        }
        List<SledEntry> sleds = new ArrayList<>();
        for (JsonNode s : root.get("sleds")) {
            sleds.add(sled(s, dir, file));
        }
        List<Path> trust = new ArrayList<>();
        if (root.has("trust")) {
            for (JsonNode t : root.get("trust")) {
                trust.add(dir.resolve(t.asString()));
            }
        }
        return new RackFile(List.copyOf(sleds), List.copyOf(trust));
    }

    private static SledEntry sled(JsonNode s, Path dir, Path file) throws RackFileException {
        for (String f : new String[] {"baseboard", "cubby", "gossip", "api", "m2", "output"}) {
            if (!s.has(f)) {
                throw new RackFileException("rack file " + file + ": a sled lacks \"" + f + "\"");
            }
        }
        List<Path> m2 = new ArrayList<>();
        s.get("m2").forEach(p -> m2.add(dir.resolve(p.asString())));
        Optional<List<String>> peers = Optional.empty();
        if (s.has("peers")) {
            List<String> p = new ArrayList<>();
            s.get("peers").forEach(x -> p.add(x.asString()));
            peers = Optional.of(List.copyOf(p));
        }
        return new SledEntry(s.get("baseboard").asString(), s.get("cubby").asInt(), s.get("gossip").asString(),
                s.get("api").asString(), List.copyOf(m2), dir.resolve(s.get("output").asString()), peers);
    }

    public Optional<SledEntry> sled(String baseboard) {
        return sleds.stream().filter(s -> s.baseboard().equals(baseboard)).findFirst();
    }

    /** The gossip peers of {@code baseboard}: its list, or every other sled; by gossip address. */
    public Map<String, String> peersOf(String baseboard) {
        SledEntry me = sled(baseboard).orElseThrow();
        Map<String, String> out = new LinkedHashMap<>();
        for (SledEntry s : sleds) {
            if (!s.baseboard().equals(baseboard) && me.peers().map(p -> p.contains(s.baseboard())).orElse(true)) {
                out.put(s.gossip(), s.gossip());
            }
        }
        return out;
    }

    public void write(Path file) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        List<Object> list = new ArrayList<>();
        Path dir = file.toAbsolutePath().getParent();
        for (SledEntry s : sleds) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("baseboard", s.baseboard());
            m.put("cubby", s.cubby());
            m.put("gossip", s.gossip());
            m.put("api", s.api());
            m.put("m2", s.m2().stream().map(p -> dir.relativize(p.toAbsolutePath()).toString()).toList());
            m.put("output", dir.relativize(s.output().toAbsolutePath()).toString());
            s.peers().ifPresent(p -> m.put("peers", p));
            list.add(m);
        }
        root.put("sleds", list);
        root.put("trust", trust.stream().map(p -> dir.relativize(p.toAbsolutePath()).toString()).toList());
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temp, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
        Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
