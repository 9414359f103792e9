package sush.ops.daemon;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import sush.gossip.Entropy;
import sush.gossip.net.GossipTls;
import sush.gossip.net.TcpTransport;
import sush.gossip.node.GossipNode;
import sush.locker.store.Locker;
import sush.ops.api.ApiServer;
import sush.ops.auth.Authority;
import sush.ops.wire.Version;
import sush.pipeline.exec.Limits;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.journal.Journal;
import sush.pipeline.sled.Gossip;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.job.TrustStore;

/** One sled's daemon: gossip node, locker, launcher, journal, sled runtime and HTTP API. */
public final class Daemon implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Daemon.class);

    /** What this sled announces as its software (the build's version and commit). */
    public static final String SOFTWARE = Version.SOFTWARE;
    /** The file in the output directory that keeps the revoked operators (issue 36). */
    public static final String REVOKED_OPERATORS = "revoked-operators.json";
    /** How long a graceful stop waits for killed jobs to report their endings. */
    static final Duration STOP_GRACE = Duration.ofSeconds(8);

    /** Everything a daemon is started with; {@code peers} maps each peer's gossip address to itself. */
    public record Settings(String baseboard, int cubby, String gossip, String api, List<Path> m2, Path output,
            List<Path> trust, Optional<Path> journalKey, Map<String, String> peers, Optional<TlsFiles> tls,
            Map<String, String> identities, Path operators, Ordering ordering, long journalMaxBytes,
            long outputMaxBytes, Limits jobLimits, long diskReserveBytes, int outputMaxJobs) {
        /** With the default bound on job output directories kept ({@link OutputBudget#DEFAULT_MAX_JOBS}). */
        public Settings(String baseboard, int cubby, String gossip, String api, List<Path> m2, Path output,
                List<Path> trust, Optional<Path> journalKey, Map<String, String> peers, Optional<TlsFiles> tls,
                Map<String, String> identities, Path operators, Ordering ordering, long journalMaxBytes,
                long outputMaxBytes, Limits jobLimits, long diskReserveBytes) {
            this(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities, operators,
                    ordering, journalMaxBytes, outputMaxBytes, jobLimits, diskReserveBytes, OutputBudget.DEFAULT_MAX_JOBS);
        }

        /** With the output disk's default reserve (the smaller of 64 MiB and 5% of the disk). */
        public Settings(String baseboard, int cubby, String gossip, String api, List<Path> m2, Path output,
                List<Path> trust, Optional<Path> journalKey, Map<String, String> peers, Optional<TlsFiles> tls,
                Map<String, String> identities, Path operators, Ordering ordering, long journalMaxBytes,
                long outputMaxBytes, Limits jobLimits) {
            this(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities, operators,
                    ordering, journalMaxBytes, outputMaxBytes, jobLimits, -1);
        }

        /** Settings with the default journal and output budgets (1 GiB, 8 GiB). */
        public Settings(String baseboard, int cubby, String gossip, String api, List<Path> m2, Path output,
                List<Path> trust, Optional<Path> journalKey, Map<String, String> peers, Optional<TlsFiles> tls,
                Map<String, String> identities, Path operators, Ordering ordering) {
            this(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities, operators,
                    ordering, Journal.DEFAULT_MAX_BYTES, OutputBudget.DEFAULT_MAX_BYTES, Limits.DEFAULT);
        }

        /** The same settings with these budgets. */
        public Settings withBudgets(long journal, long outputs) {
            return new Settings(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities,
                    operators, ordering, journal, outputs, jobLimits, diskReserveBytes, outputMaxJobs);
        }

        /**
         * The same settings keeping at most {@code jobs} finished jobs' output directories: past it
         * the oldest go, as past the byte budget (issue 39: the budget's memory and the disk's
         * directories follow the jobs kept, not every job the sled ever ran).
         */
        public Settings withOutputMaxJobs(int jobs) {
            return new Settings(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities,
                    operators, ordering, journalMaxBytes, outputMaxBytes, jobLimits, diskReserveBytes, jobs);
        }

        /**
         * The same settings with this reserve of the output disk, in bytes ({@code -1}: the
         * default): below it jobs are refused {@code no-space} and outputs stop (issue 35).
         */
        public Settings withDiskReserve(long bytes) {
            return new Settings(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities,
                    operators, ordering, journalMaxBytes, outputMaxBytes, jobLimits, bytes, outputMaxJobs);
        }

        /**
         * The same settings with these job limits: the defaults and maxima of wall time and
         * output, and the maxima of CPU, address space and file size a request may ask (D-031).
         */
        public Settings withLimits(Limits limits) {
            return new Settings(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities,
                    operators, ordering, journalMaxBytes, outputMaxBytes, limits, diskReserveBytes, outputMaxJobs);
        }

        /** The URL the API answers at, as announced to the rack; empty while its port is not fixed (0). */
        public Optional<String> apiUrl() {
            String host = api.substring(0, Math.max(0, api.lastIndexOf(':')));
            if (api.endsWith(":0")) {
                return Optional.empty();
            }
            return Optional.of((tls.isPresent() && !isLoopback(host) ? "https://" : "http://") + api);
        }
    }

    /**
     * The rack CA certificate, this sled's certificate and key, and the revoked serials: gossip
     * is mutual TLS with them. Without them gossip is plain TCP ({@code --insecure-gossip}).
     */
    public record TlsFiles(Path ca, Path cert, Path key, Optional<Path> revoked) {
    }

    /** A daemon that cannot start, with a one-line reason. */
    public static final class DaemonException extends Exception {
        private static final long serialVersionUID = 1L;

        public DaemonException(String message) {
            super(message);
        }
    }

    private final Settings settings;
    private final SledMetrics metrics;
    private final GossipNode node;
    private final Locker<?> locker;
    private final ProcessLauncher launcher;
    private final SledRuntime runtime;
    private final DisposableServer http;
    private final SledConfig cfg;
    private final Optional<GossipTls> tls;
    private final TcpTransport transport;
    private final Authority authority;
    /** Everything this daemon opened, closed in reverse by {@link #close()} (issue 37). */
    private final Teardown resources;

    private Daemon(Assembly p) {
        this.settings = p.s;
        this.metrics = p.metrics;
        this.cfg = p.cfg;
        this.authority = p.authority;
        this.tls = p.tls;
        this.transport = p.transport;
        this.node = p.node;
        this.locker = p.locker;
        this.launcher = p.launcher;
        this.runtime = p.runtime;
        this.http = p.http;
        this.resources = p.stack;
    }

    public static Daemon start(Settings s) throws DaemonException {
        return start(s, e -> { });
    }

    /**
     * As {@link #start(Settings)}; {@code observer} sees every event of the sled as it is
     * emitted, from before the sled starts (the stage trace, {@code sush daemon --trace}).
     * Whatever step fails, everything opened before it is closed in reverse (issue 37: a throw
     * from the journal's open once left the slot locks held).
     */
    public static Daemon start(Settings s, Consumer<SledEvent> observer) throws DaemonException {
        return start(s, observer, Optional.empty());
    }

    /**
     * As {@link #start(Settings, Consumer)}, with {@code faults} injected into the boundary slots
     * when given ({@code sush daemon --fault-injection DIR}: tests only, issue 38).
     */
    public static Daemon start(Settings s, Consumer<SledEvent> observer, Optional<SlotFaults> faults)
            throws DaemonException {
        return start(s, observer, faults, Optional.empty());
    }

    /**
     * As {@link #start(Settings, Consumer, Optional)}, the sled sending watermarks and forgetting
     * what the rack settled when {@code settling} is given ({@code sush daemon --forgetting},
     * issue 39: every sled of the rack runs with it, or none forgets anything).
     */
    public static Daemon start(Settings s, Consumer<SledEvent> observer, Optional<SlotFaults> faults,
            Optional<SledConfig.Settling> settling) throws DaemonException {
        if (s.m2().size() != 2) {
            throw new DaemonException("--m2 needs exactly two slot directories, got " + s.m2().size());
        }
        Assembly p = new Assembly(s);
        p.faults = faults;
        p.settling = settling;
        try {
            TrustStore trust = Assembly.trust(s.trust());
            Optional<byte[]> key = Assembly.journalKey(s.journalKey());
            Assembly.openLocker(p);
            Assembly.openOutput(p, key);
            Assembly.openGossip(p);
            Assembly.openSled(p, trust, key, observer);
            Assembly.serve(p);
            Daemon d = new Daemon(p);
            Assembly.watchSlots(p);
            return d;
        } catch (DaemonException | RuntimeException | Error e) {
            p.stack.closeAfter(e);
            throw e;
        }
    }

    /**
     * One more API front on this sled's state, on another address, with its own source of
     * session nonces: the same handlers and refusals. Fault-injection tests give it an entropy
     * that throws, to see a handler's failure answered as a typed error that changes nothing.
     */
    public DisposableServer serveApi(String host, int port, Entropy entropy) {
        return new ApiServer(cfg, node, runtime, locker, launcher, entropy, authority).bind(host, port);
    }

    /** Whether an API host is a loopback address (HTTP stays there; elsewhere HTTPS). */
    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether the API serves HTTPS. */
    public boolean https() {
        return settings.apiUrl().map(u -> u.startsWith("https://")).orElse(tls.isPresent() && !isLoopback(
                settings.api().substring(0, Math.max(0, settings.api().lastIndexOf(':')))));
    }

    /** Applies a new peer set at once (SIGHUP, or `sush rack peers`). */
    public void setPeers(Map<String, String> peers, Map<String, String> identities) {
        node.setPeers(peers, identities);
    }

    /**
     * Re-reads the revoked serials (SIGHUP) and closes the links of peers whose certificates are
     * no longer trusted; returns how many links closed.
     */
    public int reloadRevocations() throws GossipTls.TlsException {
        if (tls.isEmpty()) {
            return 0;
        }
        tls.get().reloadRevocations();
        return transport.closeUntrusted();
    }

    /** Gossip handshakes refused by the rack trust, and links refused for claiming another sled's name. */
    public long refusedHandshakes() {
        return tls.map(GossipTls::refusals).orElse(0L);
    }

    public long impostors() {
        return node.impostors();
    }

    /** Who may ask this sled (the operators file, logins, revocations). */
    public Authority authority() {
        return authority;
    }

    public Settings settings() {
        return settings;
    }

    /** The sled's launcher (its running jobs' terminals and streams). */
    public ProcessLauncher launcher() {
        return launcher;
    }

    public SledRuntime runtime() {
        return runtime;
    }

    /** The signer keys this sled trusts now (issue 41: its initial list and the operators' changes). */
    public TrustStore trust() {
        return cfg.trust();
    }

    /** The sled's gossip node (tests that gossip as this sled, as a stale or hostile peer would). */
    public GossipNode node() {
        return node;
    }

    public int apiPort() {
        return http.port();
    }

    /**
     * Graceful stop: running jobs are killed and their endings reported, then everything the
     * daemon opened closes in reverse.
     */
    @Override
    public void close() {
        if (stopJobs()) {
            sleep(LINGER.toMillis()); // lets the last endings reach the peers
        }
        if (!runtime.close(Duration.ofSeconds(2))) {
            LOG.warn("the sled's loop did not finish its stage within 2 s: closing anyway");
        }
        resources.close();
    }

    /** How long a stop that ended jobs lets their endings travel before the links close. */
    static final Duration LINGER = Duration.ofMillis(300);

    /**
     * Stops the running jobs and waits, at most {@link #STOP_GRACE}, until the sled says none
     * runs: asked once now and again at each ending the sled reports (a signal, not a poll).
     * Whether a job was running.
     */
    private boolean stopJobs() {
        runtime.stop();
        boolean idleNow;
        try {
            idleNow = runtime.query(v -> v.running().isEmpty()).blockOptional(Duration.ofSeconds(1)).orElse(true);
        } catch (RuntimeException e) {
            // A loop busy past a second (issue 38: a SIGTERM to a loaded daemon) is no reason to
            // skip the rest of the close: the wait below bounds itself.
            LOG.warn("the sled did not say within 1 s whether jobs run ({}): waiting for their endings", e.getMessage());
            idleNow = false;
        }
        if (idleNow) {
            return false;
        }
        // A late subscriber first gets the recent events: an ending reported before this
        // subscribed is seen too.
        Mono<Boolean> idle = Flux.<Object>just(Boolean.TRUE).concatWith(runtime.events().ofType(SledEvent.Ended.class))
                .concatMap(x -> runtime.query(v -> v.running().isEmpty()))
                .filter(Boolean::booleanValue).next();
        try {
            idle.block(STOP_GRACE);
        } catch (RuntimeException e) {
            LOG.warn("the stopped jobs did not all report their endings within {}: closing anyway", STOP_GRACE);
        }
        return true;
    }

    /** Creates {@code dir} (and parents) if missing and makes it 0700. */
    static void ownerOnly(Path dir) throws IOException {
        Set<PosixFilePermission> rwx = PosixFilePermissions
                .fromString("rwx------");
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(rwx));
        }
        Files.setPosixFilePermissions(dir, rwx);
    }

    static String[] split(String hostPort, String flag) throws DaemonException {
        int i = hostPort.lastIndexOf(':');
        if (i <= 0 || i == hostPort.length() - 1) {
            throw new DaemonException(flag + " wants host:port, got " + hostPort);
        }
        try {
            int port = Integer.parseInt(hostPort.substring(i + 1));
            if (port < 0 || port > 65_535) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            throw new DaemonException(flag + " has no valid port: " + hostPort);
        }
        return new String[] {hostPort.substring(0, i), hostPort.substring(i + 1)};
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
