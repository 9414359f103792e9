package sush.ops.cli;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.Logs;
import sush.ops.daemon.RackFile;
import sush.ops.daemon.SledConfigFile;
import sush.ops.daemon.SlotFaults;
import sush.ops.daemon.StageTrace;
import sush.pipeline.exec.Limits;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.projections.fold.Ordering;

/** {@code sush daemon}: one sled, from a rack file or flags, until SIGTERM; SIGHUP re-reads the peers. */
@Command(name = "daemon", description = "Run one sled's daemon (until SIGTERM; SIGHUP re-reads the peers and the "
        + "revoked certificates).")
public final class DaemonCommand implements Callable<Integer> {
    @Option(names = "--rack", description = "rack file (JSON)")
    Path rack;
    @Option(names = "--sled", description = "this sled's baseboard in the rack file")
    String sled;
    @Option(names = "--baseboard", description = "this sled's baseboard (without --rack or --config)")
    String baseboard;
    @Option(names = "--cubby", defaultValue = "0", description = "this sled's cubby, 0 to 31 (without --rack or "
            + "--config; default: ${DEFAULT-VALUE})")
    int cubby;
    @Option(names = "--gossip", description = "host:port")
    String gossip;
    @Option(names = "--api", defaultValue = "127.0.0.1:7200", description = "host:port")
    String api;
    @Option(names = "--peers", split = ",", description = "each peer as BASEBOARD=host:port (host:port alone only with "
            + "--insecure-gossip)")
    List<String> peers = List.of();
    @Option(names = "--rack-ca", description = "the rack CA certificate (PEM): gossip is mutual TLS")
    Path rackCa;
    @Option(names = "--cert", description = "this sled's certificate, issued by the rack CA (PEM)")
    Path cert;
    @Option(names = "--key", description = "this sled's private key (PKCS#8 PEM, mode 0600)")
    Path key;
    @Option(names = "--revoked", description = "revoked certificate serials, one hex serial a line (re-read on SIGHUP)")
    Path revoked;
    @Option(names = "--insecure-gossip", description = "plain TCP gossip, no authentication: tests only")
    boolean insecureGossip;
    @Option(names = "--operators", description = "the operators who may log in: OpenSSH authorized_keys (re-read on "
            + "SIGHUP)")
    Path operators;
    @Option(names = "--m2", split = ",", description = "the two M.2 slot directories")
    List<Path> m2 = List.of();
    @Option(names = "--output", description = "job output and journal directory")
    Path output;
    @Option(names = "--trust", description = "directory or file of trusted signer public keys")
    Path trust;
    @Option(names = "--ordering", defaultValue = "signed", description = "the rack's session ordering, signed or "
            + "causal (default: ${DEFAULT-VALUE}; with --rack, the rack file's)")
    String ordering;
    @Option(names = "--journal-key", description = "32-byte key (raw or hex) sealing the journal")
    Path journalKey;

    @Option(names = "--config", description = "this sled's settings as JSON (ops/dist/sled.example.json): the "
            + "rack file's sled entry plus peers, trust, operators, ordering, tls, journal_key")
    Path config;
    @Option(names = "--journal-max-bytes", description = "the journal's byte budget: past it its oldest hourly files "
            + "are deleted (default: 1 GiB)")
    Long journalMaxBytes;
    @Option(names = "--output-max-bytes", description = "the job outputs' byte budget: past it the oldest finished "
            + "jobs' outputs are deleted (default: 8 GiB)")
    Long outputMaxBytes;
    @Option(names = "--output-max-jobs", paramLabel = "N", description = "the most finished jobs whose outputs are "
            + "kept: past it the oldest finished jobs' outputs are deleted (default: 10000)")
    Integer outputMaxJobs;
    @Option(names = "--disk-reserve-bytes", paramLabel = "BYTES", description = "free space kept on the output "
            + "disk: below it jobs are refused no-space and outputs stop, and the sled serves again once space "
            + "returns (default: the smaller of 64 MiB and 5%% of the disk)")
    Long diskReserveBytes;
    @Option(names = "--max-wall-time", paramLabel = "SECONDS", description = "the longest a job may run here, and "
            + "what a job that asks no wall time gets (default: 3600)")
    Long maxWallTime;
    @Option(names = "--max-output-bytes", paramLabel = "BYTES", description = "the most output a job may keep here "
            + "(both streams; default: 64 MiB); a job may ask less per stream")
    Long maxOutput;
    @Option(names = "--max-cpu-seconds", paramLabel = "SECONDS", description = "the most CPU seconds a job may ask "
            + "(default: no maximum)")
    Long maxCpu;
    @Option(names = "--max-address-space-bytes", paramLabel = "BYTES", description = "the largest address space a "
            + "job may ask (default: no maximum)")
    Long maxAddressSpace;
    @Option(names = "--max-file-size-bytes", paramLabel = "BYTES", description = "the largest file size a job may "
            + "ask (default: no maximum)")
    Long maxFileSize;
    @Option(names = "--log-format", defaultValue = "human", description = "log lines: human or json (default: "
            + "${DEFAULT-VALUE}), to standard output")
    String logFormat;
    @Option(names = "--log-level", description = "INFO unless given: LEVEL for everything, or PACKAGE=LEVEL, "
            + "comma-separated (e.g. sush.gossip=DEBUG,io.netty=INFO)")
    String logLevel;
    @Option(names = "--trace", paramLabel = "FILE", description = "append one line per stage of every job on this "
            + "sled to FILE (monotonic nanoseconds, stage, job id, sled; no command text): where a job's time goes "
            + "(./bench.sh e2e reads it)")
    Path trace;

    @Option(names = "--fault-injection", paramLabel = "DIR", description = "TESTS ONLY: boundary slot faults "
            + "(a write delay, an I/O error) read from control files in DIR while the sled runs (the nemesis, "
            + "./bench.sh nemesis); off by default, and never for a rack in service")
    Path faultInjection;

    @Option(names = "--forgetting", description = "send watermarks and forget from the gossip set what every sled "
            + "of the rack settled (issue 39; status and history of forgotten jobs come from the journal): on by "
            + "default for a sled that knows its rack (--rack, or --config naming \"cubbies\"), which it needs")
    boolean forgetting;
    @Option(names = "--no-forgetting", description = "keep every message of the gossip set until the next migration "
            + "(as before issue 39): a rack fills its set after some tens of thousands of jobs; a sled forgets only "
            + "what every sled of the rack settled, so one sled without forgetting keeps all of them from forgetting")
    boolean noForgetting;

    private static final Logger LOG = LoggerFactory.getLogger("sush.daemon");

    /** The daemon's exit status after its sled failed closed (EX_SOFTWARE): restart it. */
    public static final int EXIT_HALTED = 70;

    /**
     * Jobs are started by vfork and exec, not by posix_spawn of the JDK's helper which then execs
     * the job (issue 17): one exec fewer per job and sled (about 1 ms of CPU on this machine,
     * {@code ./bench.sh e2e}). The JDK reads the property once, when it first starts a process,
     * so it is set before anything runs; an operator's own {@code -Djdk.lang.Process.launchMechanism}
     * wins, and only JDKs known to offer VFORK on Linux (up to 21) are asked for it.
     */
    static void launchByVfork() {
        if (System.getProperty(LAUNCH_MECHANISM) == null && Runtime.version().feature() <= 21
                && System.getProperty("os.name", "").startsWith("Linux")) {
            System.setProperty(LAUNCH_MECHANISM, "VFORK");
        }
    }

    static final String LAUNCH_MECHANISM = "jdk.lang.Process.launchMechanism";

    @Override
    public Integer call() {
        launchByVfork();
        Daemon.Settings s;
        StageTrace stages;
        try {
            configureLogs();
            if (forgetting && noForgetting) {
                throw new Refused("--forgetting and --no-forgetting: one or the other");
            }
            if (forgetting && rack == null && config == null) {
                throw new Refused("--forgetting needs --rack (or --config naming \"cubbies\"): every sled of the rack "
                        + "holds forgetting up until it says where it stands");
            }
            s = bounded(configured());
            if (faultInjection != null && !Files.isDirectory(faultInjection)) {
                throw new Refused("--fault-injection names a directory of control files; " + faultInjection
                        + " is none");
            }
            stages = openTrace(s);
        } catch (Refused e) {
            System.err.println("sush daemon: " + e.getMessage());
            return 2;
        }
        StageTrace observer = stages;
        // SIGHUP re-reads the peers. Its handler is in place before the sled starts serving: the
        // JVM's own answer to a hangup is to shut down, and a hangup that reached a starting
        // daemon (a reload right after a restart) ended it. One taken before the sled has
        // started is applied once it has.
        Reload reload = new Reload();
        onHangup(reload);
        Daemon d;
        try {
            d = Daemon.start(s, e -> {
                if (observer != null) {
                    observer.on(e);
                }
            }, Optional.ofNullable(faultInjection).map(SlotFaults::new), settling());
        } catch (Daemon.DaemonException e) {
            System.err.println("sush daemon: " + e.getMessage());
            if (stages != null) {
                stages.close();
            }
            return 1;
        }
        LOG.info("sled {} (cubby {}): API http://{}, gossip {}, {} peers, ordering {}", s.baseboard(), s.cubby(),
                s.api(), s.gossip(), s.peers().size(), s.ordering());
        return runUntilStopped(d, reload);
    }

    /**
     * Watermarks and forgetting over the rack's sleds, unless {@code --no-forgetting} (D-057):
     * the rack file's, or those a sled config's {@code "cubbies"} names. A sled that does not know
     * every sled of its rack cannot tell when all of them settled a message, so it keeps everything
     * (and says so).
     */
    private Optional<SledConfig.Settling> settling() throws Daemon.DaemonException {
        if (noForgetting) {
            return Optional.empty();
        }
        try {
            if (rack != null) {
                return Optional.of(RackFile.settling(RackFile.read(rack)));
            }
            Optional<SledConfig.Settling> named = config == null ? Optional.empty() : SledConfigFile.settling(config);
            if (named.isEmpty() && forgetting) {
                throw new Daemon.DaemonException("--forgetting: " + config + " names no \"cubbies\" (every sled of the "
                        + "rack with its cubby)");
            }
            if (named.isEmpty()) {
                LOG.info("forgetting off: {} names no rack (\"cubbies\": every sled with its cubby), so this sled "
                        + "keeps every message until the next migration", config == null ? "no --rack or --config" : config);
            }
            return named;
        } catch (RackFile.RackFileException e) {
            throw new Daemon.DaemonException(e.getMessage());
        }
    }

    /** A refusal of the daemon's flags or settings, said as {@code sush daemon: MESSAGE} (exit 2). */
    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** The log lines' format and levels, from {@code --log-format} and {@code --log-level}. */
    private void configureLogs() throws Refused {
        try {
            Logs.configure(Logs.Format.valueOf(logFormat.toUpperCase(Locale.ROOT)), Logs.levels(logLevel));
        } catch (IllegalArgumentException e) {
            throw new Refused("--log-format is human or json; " + e.getMessage());
        }
    }

    /** The sled's settings from {@code --config}, {@code --rack} or the flags. */
    private Daemon.Settings configured() throws Refused {
        try {
            return settings();
        } catch (RackFile.RackFileException | Daemon.DaemonException | IOException e) {
            throw new Refused(e.getMessage());
        }
    }

    /** {@code s} with the byte budgets, the disk reserve and the job maxima the flags give. */
    private Daemon.Settings bounded(Daemon.Settings s) throws Refused {
        if ((journalMaxBytes != null && journalMaxBytes <= 0) || (outputMaxBytes != null && outputMaxBytes <= 0)) {
            throw new Refused("a byte budget is a positive number of bytes");
        }
        s = s.withBudgets(journalMaxBytes != null ? journalMaxBytes : s.journalMaxBytes(),
                outputMaxBytes != null ? outputMaxBytes : s.outputMaxBytes());
        if (outputMaxJobs != null) {
            if (outputMaxJobs <= 0) {
                throw new Refused("--output-max-jobs is a positive number of jobs");
            }
            s = s.withOutputMaxJobs(outputMaxJobs);
        }
        if (diskReserveBytes != null) {
            if (diskReserveBytes < 0) {
                throw new Refused("--disk-reserve-bytes is a number of bytes, 0 or more");
            }
            s = s.withDiskReserve(diskReserveBytes);
        }
        for (Long n : new Long[] {maxWallTime, maxOutput, maxCpu, maxAddressSpace, maxFileSize}) {
            if (n != null && n <= 0) {
                throw new Refused("a job maximum is a positive number");
            }
        }
        Limits l = s.jobLimits();
        return s.withLimits(new Limits(maxWallTime != null ? Duration.ofSeconds(maxWallTime)
                : l.wallTime(), maxOutput != null ? maxOutput : l.outputBytes(), l.stopGrace()).withMaxima(
                maxCpu != null ? maxCpu : l.job().cpuSeconds(), maxAddressSpace != null ? maxAddressSpace
                        : l.job().addressSpaceBytes(), maxFileSize != null ? maxFileSize : l.job().fileSizeBytes()));
    }

    /**
     * The stage trace of {@code --trace}, if given (else null): it sees every event from before the
     * sled starts, stamped as it is emitted.
     */
    private StageTrace openTrace(Daemon.Settings s) throws Refused {
        if (trace == null) {
            return null;
        }
        try {
            return StageTrace.open(trace, s.baseboard());
        } catch (IOException e) {
            throw new Refused("cannot open the trace file " + trace + ": " + e.getMessage());
        }
    }

    /**
     * SIGHUP's action: re-reads the peers, the revoked certificates and the operators file into
     * the running sled. A hangup taken before the sled has started is remembered, and applied
     * when the started sled is handed over ({@link #started(Daemon)}).
     */
    private final class Reload implements Runnable {
        private final AtomicReference<Daemon> started = new AtomicReference<>();
        private final AtomicBoolean hungUpEarly = new AtomicBoolean();
        private final Object gate = new Object();

        @Override
        public void run() {
            Daemon running;
            synchronized (gate) {
                // With the start's hand-over below: a hangup is either seen as early there or
                // finds the started sled here, never neither.
                running = started.get();
                if (running == null) {
                    hungUpEarly.set(true);
                }
            }
            if (running == null) {
                LOG.info("SIGHUP while the sled starts: the peers are read again once it has started");
                return;
            }
            try {
                Daemon.Settings now = settings();
                running.setPeers(now.peers(), now.identities());
                int closed = running.reloadRevocations();
                running.authority().reload();
                LOG.info("peers and revoked certificates reloaded{}", closed > 0 ? "; " + closed
                        + " links of revoked peers closed" : "");
            } catch (Exception e) {
                LOG.error("peers not reloaded: {}", e.getMessage());
            }
        }

        /** Hands the started sled over: a hangup seen while it started is applied now. */
        void started(Daemon d) {
            boolean early;
            synchronized (gate) {
                started.set(d);
                early = hungUpEarly.getAndSet(false);
            }
            if (early) {
                run();
            }
        }
    }

    /**
     * Runs the started sled until SIGTERM (or the JVM's shutdown) or until it fails closed;
     * returns the daemon's exit status: 0, or {@link #EXIT_HALTED}.
     */
    private static int runUntilStopped(Daemon d, Reload reload) {
        CountDownLatch stopped = new CountDownLatch(1);
        // Fail closed (issue 13): a stage of the sled's loop failed unexpectedly. The sled already
        // admits nothing; the daemon exits with its own status so that its supervisor restarts
        // it, and the boundary record makes the restart safe.
        AtomicReference<String> halted = new AtomicReference<>();
        d.runtime().events().filter(e -> e instanceof SledEvent.Halted).next().subscribe(e -> {
            SledEvent.Halted h = (SledEvent.Halted) e;
            halted.set(h.stage() + ": " + h.error());
            stopped.countDown();
        }, err -> { });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            d.close();
            stopped.countDown();
        }, "sush-shutdown"));
        reload.started(d);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (halted.get() != null) {
            LOG.error("the sled stopped admitting jobs after an unexpected failure in {}; exiting with status {} for "
                    + "the supervisor to restart it", halted.get(), EXIT_HALTED);
            return EXIT_HALTED;
        }
        return 0;
    }

    private Daemon.Settings settings() throws RackFile.RackFileException, Daemon.DaemonException, IOException {
        if (config != null) {
            if (rack != null) {
                throw new Daemon.DaemonException("give --config or --rack, not both");
            }
            Daemon.Settings s = SledConfigFile.read(config);
            if (s.tls().isEmpty()) {
                LOG.warn("{} gossips in plain TCP (insecure_gossip): tests only", config);
            }
            return s;
        }
        if (rack != null) {
            RackFile r = RackFile.read(rack);
            if (sled == null) {
                throw new Daemon.DaemonException("--rack needs --sled BASEBOARD");
            }
            RackFile.SledEntry me = r.sled(sled).orElseThrow(() -> new Daemon.DaemonException("sled " + sled
                    + " is not in " + rack));
            if (r.tls().isEmpty() && !insecureGossip) {
                throw new Daemon.DaemonException(rack + " names no rack CA (\"tls\"): make one with `sush rack init`, "
                        + "or pass --insecure-gossip (tests only)");
            }
            Daemon.Settings s = r.settings(me, Optional.ofNullable(journalKey));
            return insecureGossip ? plain(s) : s;
        }
        if (baseboard == null || gossip == null || output == null || m2.isEmpty() || trust == null
                || operators == null) {
            throw new Daemon.DaemonException("give --rack and --sled, or --baseboard, --gossip, --m2, --output, --trust "
                    + "and --operators");
        }
        boolean secure = rackCa != null || cert != null || key != null;
        if (secure && (rackCa == null || cert == null || key == null)) {
            throw new Daemon.DaemonException("gossip TLS needs all of --rack-ca, --cert and --key");
        }
        if (!secure && !insecureGossip) {
            throw new Daemon.DaemonException("gossip needs --rack-ca, --cert and --key (or --insecure-gossip, tests only)");
        }
        Map<String, String> p = new LinkedHashMap<>();
        Map<String, String> ids = new LinkedHashMap<>();
        for (String peer : peers) {
            int eq = peer.indexOf('=');
            String addr = eq < 0 ? peer : peer.substring(eq + 1);
            if (eq < 0 && secure) {
                throw new Daemon.DaemonException("peer " + peer + ": with TLS every peer is BASEBOARD=host:port");
            }
            p.put(addr, addr);
            if (eq > 0) {
                ids.put(addr, peer.substring(0, eq));
            }
        }
        List<Path> keys = Files.isDirectory(trust)
                ? Files.list(trust).filter(f -> f.toString().endsWith(".pub")).sorted().toList()
                : List.of(trust);
        Optional<Daemon.TlsFiles> tls = secure && !insecureGossip
                ? Optional.of(new Daemon.TlsFiles(rackCa, cert, key, Optional.ofNullable(revoked))) : Optional.empty();
        Ordering o;
        try {
            o = Ordering.parse(ordering);
        } catch (IllegalArgumentException e) {
            throw new Daemon.DaemonException("--ordering is signed or causal, not " + ordering);
        }
        return new Daemon.Settings(baseboard, cubby, gossip, api, m2, output, keys, Optional.ofNullable(journalKey), p,
                tls, ids, operators, o);
    }

    private static Daemon.Settings plain(Daemon.Settings s) {
        return new Daemon.Settings(s.baseboard(), s.cubby(), s.gossip(), s.api(), s.m2(), s.output(), s.trust(),
                s.journalKey(), s.peers(), Optional.empty(), s.identities(), s.operators(), s.ordering());
    }

    /**
     * SIGHUP re-reads the peers. The JVM would otherwise treat HUP as a shutdown; the handler is
     * installed through reflection because {@code sun.misc.Signal} is not a compile-time API.
     */
    static void onHangup(Runnable action) {
        if (!onSignal("HUP", action)) {
            System.err.println("sush daemon: SIGHUP not handled here; restart to change peers");
        } else if (hangupIgnoredAtStart()) {
            // The JVM keeps a signal that was ignored when it started ignored (nohup does that):
            // a reload by SIGHUP would do nothing, silently.
            LOG.warn("SIGHUP was ignored when this daemon started (nohup?): kill -HUP does not re-read the "
                    + "peers; start it without nohup (its supervisor does), or restart it to change them");
        }
    }

    /** Whether SIGHUP was ignored (SIG_IGN) when this process started: bit 0 of /proc/self/status's SigIgn. */
    static boolean hangupIgnoredAtStart() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & 1L) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: nothing to say.
        }
        return false;
    }

    /** Runs {@code action} on each signal {@code name} (HUP, WINCH); false when it cannot be handled here. */
    static boolean onSignal(String name, Runnable action) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            Object hup = signal.getConstructor(String.class).newInstance(name);
            Object h = Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler}, (p, m, a) -> {
                if (m.getName().equals("handle")) {
                    action.run();
                }
                return null;
            });
            signal.getMethod("handle", signal, handler).invoke(null, hup, h);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
