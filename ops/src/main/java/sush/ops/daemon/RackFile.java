package sush.ops.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.gossip.net.RackCa;
import sush.ops.wire.Json;
import sush.pipeline.sled.SledConfig;
import sush.projections.fold.Ordering;
import sush.projections.targets.Sled;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The rack file (interfaces.md): every sled's baseboard, cubby, gossip and API addresses, M.2
 * slot directories, output directory and optional peer list; the trusted signer keys; the rack's
 * session ordering ({@code "ordering"}: {@code signed} or {@code causal}; a file without it is a
 * rack made before the signed ordering existed, so {@code causal}).
 */
public record RackFile(List<SledEntry> sleds, List<Path> trust, Optional<RackTls> tls, Path operators,
        Ordering ordering) {
    /**
     * The rack's gossip identity (security.md section 1): the CA certificate, the revoked serials,
     * and each sled's TLS directory ({@link RackCa#SLED_CERT}, {@link RackCa#SLED_KEY}).
     */
    public record RackTls(Path ca, Path revoked, Map<String, Path> sledDirs) {
    }

    /** A sled's watermark period in a daemon: one at most, when something changed. */
    public static final Duration WATERMARK_EVERY = Duration.ofSeconds(1);

    /**
     * Watermarks and forgetting over every sled of {@code rack} (issue 39): each holds forgetting
     * up until its watermarks say where it stands, one each {@link #WATERMARK_EVERY} at most.
     */
    public static SledConfig.Settling settling(RackFile rack) {
        return new SledConfig.Settling(rack.sleds().stream()
                .map(s -> new Sled(s.baseboard(), s.cubby())).toList(), WATERMARK_EVERY);
    }

    /** The same rack with another sled list (a changed peer list, say). */
    public RackFile withSleds(List<SledEntry> newSleds) {
        return new RackFile(List.copyOf(newSleds), trust, tls, operators, ordering);
    }

    /** The operators file's default name, beside the rack file. */
    public static final String OPERATORS = "operators";

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
        Optional<RackTls> tls = Optional.empty();
        if (root.has("tls")) {
            JsonNode t = root.get("tls");
            if (!t.has("ca") || !t.has("revoked")) {
                throw new RackFileException("rack file " + file + ": \"tls\" needs \"ca\" and \"revoked\"");
            }
            Map<String, Path> dirs = new LinkedHashMap<>();
            for (JsonNode x : root.get("sleds")) {
                if (!x.has("tls")) {
                    throw new RackFileException("rack file " + file + ": sled " + x.get("baseboard").asString()
                            + " has no \"tls\" directory, and the rack has a CA");
                }
                dirs.put(x.get("baseboard").asString(), dir.resolve(x.get("tls").asString()));
            }
            tls = Optional.of(new RackTls(dir.resolve(t.get("ca").asString()), dir.resolve(t.get("revoked").asString()),
                    Map.copyOf(dirs)));
        }
        Path operators = dir.resolve(root.has("operators") ? root.get("operators").asString() : OPERATORS);
        Ordering ordering = Ordering.CAUSAL;
        if (root.has("ordering")) {
            try {
                ordering = Ordering.parse(root.get("ordering").isString() ? root.get("ordering").stringValue() : "?");
            } catch (IllegalArgumentException e) {
                throw new RackFileException("rack file " + file + ": \"ordering\" is \"signed\" or \"causal\", not "
                        + root.get("ordering"));
            }
        }
        return new RackFile(List.copyOf(sleds), List.copyOf(trust), tls, operators, ordering);
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

    /**
     * The URL of a sled's API: HTTPS when the rack has TLS and the API is off loopback (as the
     * daemon serves it, {@link Daemon#https()}), else HTTP.
     */
    public String apiUrl(SledEntry s) {
        String host = s.api().substring(0, Math.max(0, s.api().lastIndexOf(':')));
        return (tls.isPresent() && !Daemon.isLoopback(host) ? "https://" : "http://") + s.api();
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

    /** The sled each gossip peer of {@code baseboard} must prove to be: peer name (address) to baseboard. */
    public Map<String, String> identitiesOf(String baseboard) {
        Map<String, String> out = new LinkedHashMap<>();
        Map<String, String> peers = peersOf(baseboard);
        for (SledEntry s : sleds) {
            if (peers.containsKey(s.gossip())) {
                out.put(s.gossip(), s.baseboard());
            }
        }
        return out;
    }

    /** This sled's TLS files, when the rack has a CA. */
    public Optional<Daemon.TlsFiles> tlsOf(String baseboard) {
        return tls.map(t -> new Daemon.TlsFiles(t.ca(), t.sledDirs().get(baseboard).resolve(RackCa.SLED_CERT),
                t.sledDirs().get(baseboard).resolve(RackCa.SLED_KEY), Optional.of(t.revoked())));
    }

    /** Where a sled of a local rack keeps its journal key: beside its output directory, outside it. */
    public static Path journalKeyOf(SledEntry s) {
        return s.output().toAbsolutePath().getParent().resolve(JOURNAL_KEY);
    }

    public static final String JOURNAL_KEY = "journal.key";

    /**
     * The daemon settings of sled {@code baseboard} of this rack: the journal key given, else the
     * sled's own {@value #JOURNAL_KEY} when it has one (`sush rack init` makes it).
     */
    public Daemon.Settings settings(SledEntry s, Optional<Path> journalKey) {
        Optional<Path> key = journalKey.or(() -> Optional.of(journalKeyOf(s)).filter(Files::exists));
        return new Daemon.Settings(s.baseboard(), s.cubby(), s.gossip(), s.api(), s.m2(), s.output(), trust, key,
                peersOf(s.baseboard()), tlsOf(s.baseboard()), identitiesOf(s.baseboard()), operators, ordering);
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
            tls.ifPresent(t -> m.put("tls", dir.relativize(t.sledDirs().get(s.baseboard()).toAbsolutePath()).toString()));
            list.add(m);
        }
        root.put("ordering", ordering.wireName());
        root.put("sleds", list);
        root.put("trust", trust.stream().map(p -> dir.relativize(p.toAbsolutePath()).toString()).toList());
        root.put("operators", dir.relativize(operators.toAbsolutePath()).toString());
        tls.ifPresent(t -> root.put("tls", Map.of("ca", dir.relativize(t.ca().toAbsolutePath()).toString(), "revoked",
                dir.relativize(t.revoked().toAbsolutePath()).toString())));
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temp, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
