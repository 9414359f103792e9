package sush.ops.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import sush.gossip.Entropy;
import sush.gossip.net.GossipTls;
import sush.ops.auth.Authority;
import sush.gossip.net.TcpTransport;
import sush.gossip.node.GossipConfig;
import sush.gossip.node.GossipNode;
import sush.locker.store.DirectorySlot;
import sush.locker.record.RecordFormat;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.locker.store.Slot;
import sush.ops.api.ApiServer;
import sush.pipeline.exec.Limits;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.journal.Journal;
import sush.pipeline.sled.Gossip;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.job.KeyException;
import sush.projections.job.TrustStore;
import sush.projections.targets.Sled;

/** One sled's daemon: gossip node, locker, launcher, journal, sled runtime and HTTP API. */
public final class Daemon implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Daemon.class);

    /** What this sled announces as its software (the build's version and commit). */
    public static final String SOFTWARE = sush.ops.Version.SOFTWARE;
    /** The file in the output directory that keeps the revoked operators (issue 36). */
    public static final String REVOKED_OPERATORS = "revoked-operators.json";
    /** How long a graceful stop waits for killed jobs to report their endings. */
    static final Duration STOP_GRACE = Duration.ofSeconds(8);

    /** Everything a daemon is started with; {@code peers} maps each peer's gossip address to itself. */
    public record Settings(String baseboard, int cubby, String gossip, String api, List<Path> m2, Path output,
            List<Path> trust, Optional<Path> journalKey, Map<String, String> peers, Optional<TlsFiles> tls,
            Map<String, String> identities, Path operators, Ordering ordering, long journalMaxBytes,
            long outputMaxBytes, Limits jobLimits, long diskReserveBytes) {
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
                    operators, ordering, journal, outputs, jobLimits, diskReserveBytes);
        }

        /**
         * The same settings with this reserve of the output disk, in bytes ({@code -1}: the
         * default): below it jobs are refused {@code no-space} and outputs stop (issue 35).
         */
        public Settings withDiskReserve(long bytes) {
            return new Settings(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities,
                    operators, ordering, journalMaxBytes, outputMaxBytes, jobLimits, bytes);
        }

        /**
         * The same settings with these job limits: the defaults and maxima of wall time and
         * output, and the maxima of CPU, address space and file size a request may ask (D-031).
         */
        public Settings withLimits(Limits limits) {
            return new Settings(baseboard, cubby, gossip, api, m2, output, trust, journalKey, peers, tls, identities,
                    operators, ordering, journalMaxBytes, outputMaxBytes, limits, diskReserveBytes);
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

    /** The daemon's metrics, closed with it. */
    private SledMetrics metrics;
    private final Settings settings;
    private final GossipNode node;
    private final Locker<?> locker;
    private final ProcessLauncher launcher;
    private final Optional<Journal> journal;
    private final SledRuntime runtime;
    private final DisposableServer http;
    private final SledConfig cfg;
    private final Optional<GossipTls> tls;
    private final TcpTransport transport;
    private final Authority authority;
    private final ApiServer api;
    private final Scheduler loop;
    private final Scheduler writer;
    private final Scheduler ingress;
    private final Scheduler housekeeping;
    /** Watches the boundary slots for changes this daemon did not make (issue 22). */
    private volatile SlotWatch watch;

    private Daemon(Settings settings, SledConfig cfg, ApiServer api, Authority authority, Optional<GossipTls> tls, TcpTransport transport, GossipNode node, Locker<?> locker, ProcessLauncher launcher,
            Optional<Journal> journal, SledRuntime runtime, DisposableServer http, Scheduler loop, Scheduler writer,
            Scheduler ingress, Scheduler housekeeping) {
        this.settings = settings;
        this.cfg = cfg;
        this.authority = authority;
        this.api = api;
        this.tls = tls;
        this.transport = transport;
        this.node = node;
        this.locker = locker;
        this.launcher = launcher;
        this.journal = journal;
        this.runtime = runtime;
        this.http = http;
        this.loop = loop;
        this.writer = writer;
        this.ingress = ingress;
        this.housekeeping = housekeeping;
    }

    public static Daemon start(Settings s) throws DaemonException {
        return start(s, e -> { });
    }

    /**
     * As {@link #start(Settings)}; {@code observer} sees every event of the sled as it is
     * emitted, from before the sled starts (the stage trace, {@code sush daemon --trace}).
     */
    public static Daemon start(Settings s, java.util.function.Consumer<sush.pipeline.sled.SledEvent> observer)
            throws DaemonException {
        SledMetrics metrics = new SledMetrics();
        try {
            Daemon d = start(s, metrics, observer);
            d.metrics = metrics;
            return d;
        } catch (DaemonException | RuntimeException e) {
            metrics.close();
            throw e;
        }
    }

    private static Daemon start(Settings s, SledMetrics metrics,
            java.util.function.Consumer<sush.pipeline.sled.SledEvent> observer) throws DaemonException {
        if (s.m2().size() != 2) {
            throw new DaemonException("--m2 needs exactly two slot directories, got " + s.m2().size());
        }
        TrustStore trust = trust(s.trust());
        Optional<byte[]> key = journalKey(s.journalKey());
        List<Slot> slots = new ArrayList<>();
        for (Path p : s.m2()) {
            slots.add(new DirectorySlot(p, metrics::fsync));
        }
        Locker<?> locker;
        try {
            // The rack's ordering picks the record format; a record of the other ordering loads
            // untrusted, naming the mismatch (ordered-sessions.md section 6).
            locker = Locker.open(RecordFormat.of(s.ordering().wireName()), s.baseboard(), slots, Entropy.secure());
            // Each M.2 is its own device: a commit writes them at once (D-029).
            locker.writeInParallel(SLOT_WRITERS);
        } catch (LockerException e) {
            throw new DaemonException("unusable M.2 slots: " + e.getMessage());
        }
        try {
            // Job text is private (issue 22): the output directory and the journal in it are the
            // daemon's user's alone, whatever they were before.
            ownerOnly(s.output());
            ownerOnly(s.output().resolve("journal"));
        } catch (IOException e) {
            locker.close();
            throw new DaemonException("cannot create output directory " + s.output() + ": " + e.getMessage());
        }
        if (key.isEmpty()) {
            LOG.warn("the journal in " + s.output().resolve("journal") + " is NOT sealed: every job's "
                    + "command is stored there in clear; give --journal-key (sush rack init makes one per sled)");
        }
        String[] hostPort = split(s.gossip(), "--gossip");
        Optional<GossipTls> tls = Optional.empty();
        if (s.tls().isPresent()) {
            TlsFiles f = s.tls().get();
            try {
                tls = Optional.of(GossipTls.load(f.ca(), f.cert(), f.key(), f.revoked()));
            } catch (GossipTls.TlsException e) {
                locker.close();
                throw new DaemonException("gossip TLS: " + e.getMessage());
            }
            if (!tls.get().myIdentity().equals(s.baseboard())) {
                locker.close();
                throw new DaemonException("gossip TLS: " + f.cert() + " names sled " + tls.get().myIdentity()
                        + ", not " + s.baseboard());
            }
        } else {
            LOG.warn("gossip is plain TCP (--insecure-gossip): any host that reaches "
                    + s.gossip() + " can join this rack and inject messages; use it for tests only");
        }
        TcpTransport transport = new TcpTransport(hostPort[0], Integer.parseInt(hostPort[1]), Duration.ofSeconds(2),
                tls);
        // Gossip names a sled by its gossip address: what its peers dial is what they admit.
        // The documented rack defaults (D-008): a session every 30 s per link as the safety net,
        // links idle for 90 s closed; redial from 50 ms up to 2 s.
        GossipConfig defaults = GossipConfig.defaults(s.gossip());
        GossipNode node = new GossipNode(new GossipConfig(s.gossip(), defaults.sessionTimeout(),
                defaults.idleTimeout(), defaults.periodicSync(), Duration.ofMillis(50), Duration.ofSeconds(2)),
                transport, Schedulers.parallel(),
                Entropy.secure());
        Scheduler loop = Schedulers.newSingle("sled-loop");
        Scheduler writer = Schedulers.newSingle("boundary-writer");
        // A full output disk is a state the sled recovers from (issue 35, D-046): outputs stop at
        // the reserve, the journal keeps half of it, and jobs are refused while it is short.
        sush.pipeline.disk.DiskReserve disk;
        try {
            disk = sush.pipeline.disk.DiskReserve.of(s.output(), s.diskReserveBytes());
        } catch (IOException e) {
            locker.close();
            throw new DaemonException("cannot read the free space of " + s.output() + ": " + e.getMessage());
        }
        ProcessLauncher launcher = new ProcessLauncher(s.output(), disk);
        Optional<Journal> journal = Optional.of(Journal.open(s.output().resolve("journal"), key, Entropy.secure(),
                s.journalMaxBytes(), disk));
        // The sled's clocks stamp its jobs' start and end on their statuses (shown, never ordering).
        SledConfig cfg = new SledConfig(new Sled(s.baseboard(), s.cubby()), trust, SOFTWARE, s.jobLimits(),
                Optional.of(sush.pipeline.sled.SledClock.system()), s.apiUrl()).withDisk(disk);
        // Deliveries are decoded and their signatures checked on workers of their own, ahead of
        // the sled's single-threaded state machine (D-019), so a burst of checks never delays
        // the gossip node's timers on the shared parallel scheduler.
        Scheduler ingress = Schedulers.newParallel("sush-ingress", Math.max(1, Runtime.getRuntime().availableProcessors()));
        SledRuntime runtime = new SledRuntime(cfg, Gossip.of(node), locker, launcher, journal, loop, writer, ingress);
        // One housekeeping thread: the output budget's index is kept by one thread at a time. A
        // thread of its own, where blocking is allowed (issue 35): keeping the budget asks the
        // sled's loop which jobs run and waits for the answer, and a Reactor single scheduler
        // refuses blocking calls, so the budget was never kept.
        Scheduler housekeeping = Schedulers.fromExecutorService(java.util.concurrent.Executors.newSingleThreadExecutor(
                r -> {
                    Thread t = new Thread(r, "sush-housekeeping");
                    t.setDaemon(true);
                    return t;
                }), "sush-housekeeping");
        OutputBudget outputs = new OutputBudget(s.output().resolve("jobs"), s.outputMaxBytes());
        // The API is made below; the budget asks it which outputs are being read.
        java.util.concurrent.atomic.AtomicReference<ApiServer> apiOf = new java.util.concurrent.atomic.AtomicReference<>();
        runtime.events().subscribe(e -> {
            try {
                observer.accept(e);
            } catch (RuntimeException err) {
                // An observer's failure never ends the sled's logs and metrics.
                LOG.warn("an event observer failed: {}", err.toString());
            }
            EventLog.log(e);
            metrics.on(e);
            if (e instanceof sush.pipeline.sled.SledEvent.Ended) {
                // Off the sled's loop: the output budget is kept after every ending.
                String job = ((sush.pipeline.sled.SledEvent.Ended) e).job().codephrase();
                housekeeping.schedule(() -> keepOutputBudget(outputs, job, runtime, apiOf.get()));
            }
        }, err -> LOG.error("the sled's event stream failed", err));
        metrics.bind(node, runtime, s.output().resolve("journal"));
        if (!locker.trusted()) {
            LOG.error("the boundary slots are untrusted ({}): this sled runs no job until serviced",
                    locker.load().reason());
        } else {
            LOG.info("boundary slots loaded: {} ({}), ordering {}", locker.load().verdict(), locker.load().reason(),
                    s.ordering());
        }
        Authority authority;
        try {
            // Revoked operators are kept beside the journal, never on the M.2s, and read before
            // the API serves (issue 36): a restarted sled never honours a revoked key, not even briefly.
            authority = new Authority(s.operators(), System::currentTimeMillis, Entropy.secure(),
                    Optional.of(s.output().resolve(REVOKED_OPERATORS)));
        } catch (IOException e) {
            closeQuietly(locker, launcher, journal, loop, writer, ingress, housekeeping);
            throw new DaemonException("operators: " + e.getMessage());
        }
        // The API's authority listens before the sled starts: logins in the replayed history count.
        ApiServer api = new ApiServer(cfg, node, runtime, locker, launcher, Entropy.secure(), authority);
        api.deletedOutputs(outputs::wasDeleted);
        apiOf.set(api);
        api.metrics(metrics::scrape);
        tls.ifPresent(t -> api.relayTrust(t.ca()));
        runtime.start();
        try {
            node.start().block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            closeQuietly(locker, launcher, journal, loop, writer, ingress, housekeeping);
            throw new DaemonException("cannot listen for gossip on " + s.gossip() + ": " + rootMessage(e));
        }
        node.setPeers(s.peers(), s.identities());
        String[] apiAt = split(s.api(), "--api");
        DisposableServer http;
        boolean loopback = isLoopback(apiAt[0]);
        try {
            reactor.netty.http.server.HttpServer server = reactor.netty.http.server.HttpServer.create().host(apiAt[0])
                    .port(Integer.parseInt(apiAt[1])).metrics(true, SledMetrics::uriTemplate);
            if (!loopback && tls.isPresent()) {
                // Off loopback the API is HTTPS with the sled's certificate (security.md section 3).
                GossipTls t = tls.get();
                reactor.netty.tcp.SslProvider.GenericSslContextSpec<?> https =
                        reactor.netty.http.Http11SslContextSpec.forServer(t.key(), t.certificate());
                server = server.secure(spec -> spec.sslContext(https));
            }
            http = api.bind(server);
        } catch (RuntimeException e) {
            node.stop();
            closeQuietly(locker, launcher, journal, loop, writer, ingress, housekeeping);
            throw new DaemonException("cannot serve the API on " + s.api() + ": " + rootMessage(e));
        }
        // The address announced to the rack, asked as another sled would ask it (in the background).
        s.apiUrl().ifPresent(url -> api.probeAnnounced(url).subscribe());
        if (!loopback && tls.isEmpty()) {
            LOG.warn("the API listens on " + s.api() + " over plain HTTP (no rack certificate): "
                    + "operator requests are signed, but their bodies and answers are readable on the network");
        }
        Daemon d = new Daemon(s, cfg, api, authority, tls, transport, node, locker, launcher, journal, runtime, http, loop,
                writer, ingress, housekeeping);
        try {
            d.watch = SlotWatch.start(s.m2(), locker, change -> {
                LOG.error("{}", change);
                runtime.slotsChanged(change);
            });
        } catch (IOException e) {
            LOG.warn("cannot watch the boundary slots (" + e.getMessage() + "): a change made to them "
                    + "by something else is found only by the next load");
        }
        return d;
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
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
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

    public int apiPort() {
        return http.port();
    }

    /** Graceful stop: running jobs are killed and their endings reported, then everything closes. */
    @Override
    public void close() {
        runtime.stop();
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        while (System.nanoTime() < deadline
                && !runtime.query(v -> v.running().isEmpty()).blockOptional(Duration.ofSeconds(1)).orElse(true)) {
            sleep(50);
        }
        sleep(300); // lets the last endings reach the peers
        runtime.halt();
        if (watch != null) {
            watch.close();
        }
        http.disposeNow(Duration.ofSeconds(2));
        api.closeConnections();
        node.stop();
        if (runtime.failure().isPresent() && journal.isPresent()) {
            // A sled that failed closed leaves its journal to the process's exit: the journal may
            // be what failed (a full disk under its mapping), and closing it writes to that
            // mapping, which can crash the JVM instead of letting it exit 70 (issue 35).
            LOG.warn("the sled failed closed: its journal is left unclosed to the process's exit");
            closeQuietly(locker, launcher, Optional.empty(), loop, writer, ingress, housekeeping);
        } else {
            closeQuietly(locker, launcher, journal, loop, writer, ingress, housekeeping);
        }
        if (metrics != null) {
            metrics.close();
        }
    }

    /** Deletes the oldest finished jobs' outputs past the sled's output budget (never a running job's). */
    private static void keepOutputBudget(OutputBudget outputs, String job, SledRuntime runtime, ApiServer api) {
        try {
            for (Path d : outputs.ended(job, () -> {
                // Kept whatever their age: running jobs', and those a client is reading now.
                java.util.Set<String> keep = new java.util.HashSet<>(api == null ? java.util.Set.of()
                        : api.outputsBeingRead());
                java.util.Set<sush.projections.id.JobId> running = runtime.query(v -> v.running())
                        .blockOptional(Duration.ofSeconds(5)).orElseThrow(() -> new IllegalStateException(
                                "the sled's loop did not say which jobs run within 5 s: nothing deleted"));
                running.forEach(j -> keep.add(j.codephrase()));
                return keep;
            })) {
                LOG.info("deleted the output of {}: the outputs were over their budget", d.getFileName());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("keeping the output budget failed: {}", e.getMessage());
        }
    }

    /**
     * The threads that write the boundary slots, one per slot of a store at once (D-029): daemon
     * threads, idle ones end after a minute; shared by every daemon of this JVM (tests run several).
     */
    private static final java.util.concurrent.ExecutorService SLOT_WRITERS = java.util.concurrent.Executors
            .newCachedThreadPool(r -> {
                Thread t = new Thread(r, "sush-slot-writer");
                t.setDaemon(true);
                return t;
            });

    /** Ends abruptly (tests that need a crash use a separate process and kill -9). */
    private static void closeQuietly(Locker<?> locker, ProcessLauncher launcher, Optional<Journal> journal,
            Scheduler... schedulers) {
        locker.close();
        launcher.close();
        journal.ifPresent(Journal::close);
        for (Scheduler s : schedulers) {
            s.dispose();
        }
    }

    private static TrustStore trust(List<Path> files) throws DaemonException {
        List<String> pems = new ArrayList<>();
        for (Path f : files) {
            try {
                pems.add(Files.readString(f));
            } catch (IOException e) {
                throw new DaemonException("cannot read trusted key " + f + ": " + e.getMessage());
            }
        }
        try {
            return TrustStore.of(pems);
        } catch (KeyException e) {
            throw new DaemonException("bad trusted key: " + e.getMessage());
        }
    }

    /** Creates {@code dir} (and parents) if missing and makes it 0700. */
    static void ownerOnly(Path dir) throws IOException {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> rwx = java.nio.file.attribute.PosixFilePermissions
                .fromString("rwx------");
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(rwx));
        }
        Files.setPosixFilePermissions(dir, rwx);
    }

    private static Optional<byte[]> journalKey(Optional<Path> file) throws DaemonException {
        if (file.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Journal.readKey(file.get()));
        } catch (IOException | sush.pipeline.journal.JournalException e) {
            throw new DaemonException("journal key: " + e.getMessage());
        }
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

    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null) {
            r = r.getCause();
        }
        return r.getMessage() == null ? r.toString() : r.getMessage();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
