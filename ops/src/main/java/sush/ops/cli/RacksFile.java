package sush.ops.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.ops.daemon.RackFile;
import sush.ops.wire.Json;
import tools.jackson.databind.JsonNode;

/**
 * The racks an operator reaches by name (issue 41): {@code racks.json} in the user's config
 * directory ({@code $XDG_CONFIG_HOME/sush}, else {@code ~/.config/sush}; the property {@code
 * sush.config} first). Each rack is a rack file ({@code {"rack": "lab/rack.json"}}: its sleds'
 * APIs and its CA) or a list of API URLs with the CA that signed their certificates ({@code
 * {"urls": ["https://10.0.0.1:7200", ...], "ca": "a/ca.crt"}}); relative paths are the racks
 * file's directory's. {@code --rack NAME} (env {@code SUSH_RACK_NAME}) picks one for a command.
 */
public final class RacksFile {
    public static final String FILE = "racks.json";
    /** Bound on the racks file read (a few hundred racks are a few dozen KiB). */
    static final long MAX_BYTES = 1024 * 1024;

    /** A rack by name: its API URLs in the order tried, and the CA an https:// one must present. */
    public record Rack(String name, List<String> urls, Optional<Path> ca) {
    }

    private RacksFile() {
    }

    /** The racks of {@code file} in its order; a file that is missing holds none. */
    public static Map<String, Rack> read(Path file) throws Client.Failure {
        if (!Files.exists(file)) {
            return Map.of();
        }
        JsonNode root;
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw bad(file, "larger than " + MAX_BYTES + " bytes");
            }
            root = Json.MAPPER.readTree(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            throw bad(file, e.getMessage());
        }
        JsonNode racks = root.path("racks");
        if (!racks.isObject()) {
            throw bad(file, "no \"racks\" object");
        }
        Path dir = file.toAbsolutePath().getParent();
        Map<String, Rack> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = racks.properties().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            if (!name.matches("[a-z0-9][a-z0-9._-]{0,63}")) {
                throw bad(file, "rack name \"" + Client.printable(name) + "\" (lower-case letters, digits, '.', '_', "
                        + "'-'; at most 64)");
            }
            out.put(name, rack(file, dir, name, e.getValue()));
        }
        return out;
    }

    private static Rack rack(Path file, Path dir, String name, JsonNode n) throws Client.Failure {
        if (n.path("rack").isString()) {
            Path rackFile = dir.resolve(n.get("rack").asString());
            try {
                RackFile r = RackFile.read(rackFile);
                List<String> urls = new ArrayList<>();
                r.sleds().forEach(s -> urls.add(r.apiUrl(s)));
                return new Rack(name, List.copyOf(urls), r.tls().map(RackFile.RackTls::ca));
            } catch (RackFile.RackFileException e) {
                throw bad(file, "rack " + name + ": its rack file " + rackFile + " does not read: " + e.getMessage());
            }
        }
        if (!n.path("urls").isArray() || n.get("urls").isEmpty()) {
            throw bad(file, "rack " + name + " has neither \"rack\" (a rack file) nor \"urls\" (a list of API URLs)");
        }
        List<String> urls = new ArrayList<>();
        for (JsonNode u : n.get("urls")) {
            String url = u.isString() ? u.asString() : "";
            if (!url.startsWith("http://") && !url.startsWith("https://")) {
                throw bad(file, "rack " + name + ": \"" + Client.printable(url) + "\" is not an http:// or "
                        + "https:// URL");
            }
            urls.add(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        }
        Optional<Path> ca = n.path("ca").isString() ? Optional.of(dir.resolve(n.get("ca").asString()))
                : Optional.empty();
        if (ca.isEmpty() && urls.stream().anyMatch(u -> u.startsWith("https://"))) {
            throw bad(file, "rack " + name + " has https:// URLs and no \"ca\" (the rack CA's certificate)");
        }
        return new Rack(name, List.copyOf(urls), ca);
    }

    private static Client.Failure bad(Path file, String why) {
        return new Client.Failure(2, "bad-racks-file", file + ": " + why);
    }
}
