package sush.ops.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

import picocli.CommandLine.Option;
import sush.ops.auth.Authority;
import sush.ops.auth.Credentials;
import sush.ops.daemon.RackFile;
import sush.ops.wire.Json;
import sush.projections.job.KeyException;
import sush.projections.job.SignerKey;

/** The options every client command takes: which sled, output shape, signer key. */
public final class Global {
    @Option(names = "--url", description = "a sled's API (env SUSH_URL; default http://127.0.0.1:7200)")
    String url;

    @Option(names = "--rack", paramLabel = "NAME", description = "a rack of your racks file, by name (env "
            + "SUSH_RACK_NAME): its sleds' APIs, tried in order, and its CA; --url wins over it")
    String rack;

    @Option(names = "--json", description = "one JSON document instead of text")
    boolean json;

    @Option(names = "--key", description = "signer private key (env SUSH_SIGNER_KEY)")
    Path key;

    @Option(names = "--operator-key", description = "your OpenSSH private key for logging in (env SUSH_OPERATOR_KEY; "
            + "default: the SSH agent)")
    Path operatorKey;

    /** The environment, directory and streams this command runs in. */
    private final Invocation invocation;

    Global(Invocation invocation) {
        this.invocation = invocation;
        // JSON by the environment too (the shell's `set json on`); --json still turns it on.
        this.json = "1".equals(invocation.getenv("SUSH_JSON"));
    }

    /** The environment, directory and streams this command runs in. */
    Invocation invocation() {
        return invocation;
    }

    /**
     * A client of the sled, logged in on demand with the operator key; the identity is cached in
     * the user's cache directory (mode 0600) so that consecutive commands share one login.
     */
    @Option(names = "--ca", description = "the rack CA certificate an https:// sled must present (env SUSH_CA)")
    Path ca;

    public Client client() throws Client.Failure {
        return client(url());
    }

    /**
     * The sled's API this command asks: {@code --url}, else the rack {@code --rack} or {@code
     * SUSH_RACK_NAME} names (its first API that takes a connection), else {@code SUSH_URL}, else
     * the local default.
     */
    String url() throws Client.Failure {
        if (url != null) {
            return url;
        }
        Optional<RacksFile.Rack> named = namedRack();
        if (named.isPresent()) {
            return reachableFirst(named.get().urls());
        }
        return Optional.ofNullable(invocation.getenv("SUSH_URL")).orElse("http://127.0.0.1:7200");
    }

    /**
     * The options given on this command line as the environment variables that mean the same
     * ({@code --url}, {@code --rack}, {@code --json}): what the shell keeps for its commands.
     */
    public Map<String, String> asEnvironment() {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        if (rack != null) {
            out.put("SUSH_RACK_NAME", rack);
        }
        if (url != null) {
            out.put("SUSH_URL", url);
        }
        if (json) {
            out.put("SUSH_JSON", "1");
        }
        return out;
    }

    /** The rack named, once read (a command asks for its URL and then its CA). */
    private Optional<RacksFile.Rack> named;

    /**
     * The rack {@code --rack} or {@code SUSH_RACK_NAME} names, if one does; a name the racks file
     * lacks is an error.
     */
    Optional<RacksFile.Rack> namedRack() throws Client.Failure {
        if (named == null) {
            named = readNamedRack();
        }
        return named;
    }

    private Optional<RacksFile.Rack> readNamedRack() throws Client.Failure {
        String name = rack != null ? rack : invocation.getenv("SUSH_RACK_NAME");
        if (name == null || name.isEmpty()) {
            return Optional.empty();
        }
        Path file = configDir().resolve(RacksFile.FILE);
        RacksFile.Rack r = RacksFile.read(file).get(name);
        if (r == null) {
            throw new Client.Failure(2, "unknown-rack", "no rack " + Client.printable(name) + " in " + file
                    + " (`sush racks` lists them)");
        }
        return Optional.of(r);
    }

    /** How long a rack's API may take to accept a TCP connection before the next one is tried. */
    static final int CONNECT_PROBE_MILLIS = 700;

    /** The first of {@code urls} whose host takes a TCP connection in {@link #CONNECT_PROBE_MILLIS}; else the first. */
    static String reachableFirst(java.util.List<String> urls) {
        if (urls.size() > 1) {
            for (String u : urls) {
                java.net.URI at = java.net.URI.create(u);
                int port = at.getPort() > 0 ? at.getPort() : u.startsWith("https://") ? 443 : 80;
                try (java.net.Socket probe = new java.net.Socket()) {
                    probe.connect(new java.net.InetSocketAddress(at.getHost(), port), CONNECT_PROBE_MILLIS);
                    return u;
                } catch (java.io.IOException | IllegalArgumentException e) {
                    // the next one
                }
            }
        }
        return urls.get(0);
    }

    /**
     * The CLI's configuration ({@code racks.json}): {@code $XDG_CONFIG_HOME/sush} (or {@code
     * ~/.config/sush}; the property {@code sush.config} wins, for tests).
     */
    Path configDir() {
        String base = Optional.ofNullable(System.getProperty("sush.config")).or(() -> Optional.ofNullable(
                invocation.getenv("XDG_CONFIG_HOME")).filter(s -> !s.isEmpty()).map(s -> s))
                .orElse(System.getProperty("user.home") + "/.config");
        return invocation.path(Path.of(base, "sush"));
    }

    /** A client of the sled at {@code u}, with this command's credentials and trust. */
    Client client(String u) throws Client.Failure {
        return client(u, new Credentials(Credentials.fromEnvironment(operatorKey, invocation.env(), invocation.cwd()),
                Optional.of(identityCache(u))));
    }

    /** A client of the sled at {@code u} with {@code creds}, trusting what this command trusts. */
    Client client(String u, Credentials creds) throws Client.Failure {
        if (!u.startsWith("https://")) {
            return new Client(u, creds);
        }
        Optional<Path> named = namedRack().flatMap(RacksFile.Rack::ca);
        Optional<Path> trust = Optional.ofNullable(invocation.path(ca)).or(() -> Optional.ofNullable(
                invocation.getenv("SUSH_CA")).map(invocation::path)).or(() -> named).or(() -> localRack()
                        .flatMap(RackFile::tls).map(RackFile.RackTls::ca));
        if (trust.isEmpty()) {
            throw new Client.Failure(2, "no-ca", u + " is HTTPS: give the rack CA certificate with --ca FILE or SUSH_CA, "
                    + "name a rack of your racks file that has one (--rack), or run where the rack file is (SUSH_RACK, "
                    + "or ./rack/rack.json of `sush rack init`)");
        }
        return new Client(u, creds, Client.trusting(trust.get()));
    }

    /**
     * The rack file of the operator's working rack (the property {@code sush.rack}, env
     * SUSH_RACK, or ./rack/rack.json), if there is one and it reads; its CA is trusted and its
     * sleds' APIs are found there.
     */
    Optional<RackFile> localRack() {
        Path file = Optional.ofNullable(System.getProperty("sush.rack")).or(() -> Optional.ofNullable(
                invocation.getenv("SUSH_RACK"))).map(invocation::path).orElse(invocation.path(Path.of("rack",
                        "rack.json")));
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(RackFile.read(file));
        } catch (RackFile.RackFileException e) {
            return Optional.empty();
        }
    }

    /** One identity file per sled URL, in {@link #cacheDir()}. */
    Path identityCache(String url) {
        String name = HexFormat.of().formatHex(Authority.sha3(url.getBytes(
                StandardCharsets.UTF_8))).substring(0, 16);
        return cacheDir().resolve("identity-" + name + ".json");
    }

    /**
     * The CLI's cache: {@code $XDG_CACHE_HOME/sush} (or {@code ~/.cache/sush}; the property
     * {@code sush.cache} first). Login identities and the last job started live here: losing them
     * costs a login. Grants and chains are state ({@link #stateDir()}).
     */
    Path cacheDir() {
        String base = Optional.ofNullable(System.getProperty("sush.cache")).or(() -> Optional.ofNullable(
                invocation.getenv("XDG_CACHE_HOME")).filter(s -> !s.isEmpty()).map(s -> s))
                .orElse(System.getProperty("user.home") + "/.cache");
        return invocation.path(Path.of(base, "sush"));
    }

    /**
     * The CLI's state, which is not a cache (issue 34): the grants and chains of the sessions it
     * started, per rack. {@code $XDG_STATE_HOME/sush} (or {@code ~/.local/state/sush}; the property
     * {@code sush.state} wins, for tests).
     */
    public Path stateDir() {
        String base = Optional.ofNullable(System.getProperty("sush.state")).or(() -> Optional.ofNullable(
                invocation.getenv("XDG_STATE_HOME")).filter(s -> !s.isEmpty()).map(s -> s))
                .orElse(System.getProperty("user.home") + "/.local/state");
        return invocation.path(Path.of(base, "sush"));
    }

    /** This command's signer key file: {@code --key}, else {@code SUSH_SIGNER_KEY}; null when neither is given. */
    Path signerKeyFile() {
        return signerKeyFile(invocation, key);
    }

    /**
     * The signer key file of a command run in {@code invocation}: {@code option} ({@code --key}),
     * else {@code SUSH_SIGNER_KEY}; null when neither is given.
     */
    static Path signerKeyFile(Invocation invocation, Path option) {
        return option != null ? invocation.path(option) : Optional.ofNullable(invocation.getenv("SUSH_SIGNER_KEY"))
                .map(invocation::path).orElse(null);
    }

    SignerKey signer() throws Client.Failure {
        Path k = signerKeyFile();
        if (k == null) {
            throw new Client.Failure(2, "no-key", "no signer key: pass --key FILE or set SUSH_SIGNER_KEY "
                    + "(sush keygen --out DIR makes one)");
        }
        try {
            return SignerKey.fromPem(Files.readString(k));
        } catch (IOException | KeyException e) {
            throw new Client.Failure(2, "bad-key", "cannot use signer key " + k + ": " + e.getMessage());
        }
    }

    /** Prints {@code doc} as JSON, or {@code text} when not asked for JSON. */
    void print(Object doc, String text) {
        invocation.out().println(json ? Json.MAPPER.writeValueAsString(doc) : text);
    }

    /** Reports a failure the way scripts expect: one line on stderr (or JSON), the exit code. */
    int fail(Client.Failure f) {
        if (json) {
            invocation.out().println(Json.MAPPER.writeValueAsString(Map.of("error", f.code(), "message",
                    f.getMessage())));
        } else {
            invocation.err().println("sush: " + f.getMessage() + " (" + f.code() + ")");
        }
        return f.exit();
    }
}
