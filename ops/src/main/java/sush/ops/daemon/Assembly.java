package sush.ops.daemon;

import static sush.ops.daemon.Daemon.REVOKED_OPERATORS;
import static sush.ops.daemon.Daemon.SOFTWARE;
import static sush.ops.daemon.Daemon.isLoopback;
import static sush.ops.daemon.Daemon.ownerOnly;
import static sush.ops.daemon.Daemon.split;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.Http11SslContextSpec;
import reactor.netty.http.server.HttpServer;
import reactor.netty.tcp.SslProvider;
import sush.gossip.Entropy;
import sush.gossip.net.GossipTls;
import sush.gossip.net.TcpTransport;
import sush.gossip.node.GossipConfig;
import sush.gossip.node.GossipNode;
import sush.gossip.set.IdentityKeeper;
import sush.locker.record.RecordFormat;
import sush.locker.store.DirectorySlot;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.locker.store.Slot;
import sush.ops.api.ApiServer;
import sush.ops.auth.Authority;
import sush.ops.daemon.Daemon.DaemonException;
import sush.ops.daemon.Daemon.Settings;
import sush.ops.daemon.Daemon.TlsFiles;
import sush.pipeline.disk.DiskReserve;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.journal.BookmarkFile;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalException;
import sush.pipeline.sled.Gossip;
import sush.pipeline.sled.SledClock;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.id.JobId;
import sush.projections.job.KeyException;
import sush.projections.job.TrustStore;
import sush.projections.targets.Sled;

/**
 * A daemon being assembled (issue 37): its pieces as {@link Daemon#start} opens them, one step a
 * method, and the stack of what is open. Each step pushes what it opened onto {@link #stack}, so
 * a failed step closes exactly what came before it, in reverse; a started daemon keeps the
 * stack and closes it the same way.
 */
final class Assembly {
    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    final Settings s;
    final Teardown stack = new Teardown();
    final SledMetrics metrics;
    Locker<?> locker;
    Optional<GossipTls> tls = Optional.empty();
    TcpTransport transport;
    GossipNode node;
    ProcessLauncher launcher;
    Optional<Journal> journal = Optional.empty();
    SledConfig cfg;
    SledRuntime runtime;
    Authority authority;
    ApiServer api;
    DisposableServer http;
    /** Faults injected into the slots ({@code --fault-injection}, tests only); none by default. */
    Optional<SlotFaults> faults = Optional.empty();
    /** Where the gossip identity is kept for the next life (D-053): the bookmark file, or nothing. */
    IdentityKeeper identity = IdentityKeeper.NONE;
    /** Watermarks and forgetting (issue 39): on for a sled of a rack file unless {@code --no-forgetting} (D-057). */
    Optional<SledConfig.Settling> settling = Optional.empty();


    Assembly(Settings s) {
        this.s = s;
        this.metrics = new SledMetrics();
        stack.push("metrics", metrics::close);
    }

    /** The boundary slots, locked for this process; the record format is the rack's ordering's. */
    static void openLocker(Assembly p) throws DaemonException {
        List<Slot> slots = new ArrayList<>();
        for (Path m2 : p.s.m2()) {
            Slot slot = new DirectorySlot(m2, p.metrics::fsync);
            slots.add(p.faults.isPresent() ? p.faults.get().wrap(slot, slots.size()) : slot);
        }
        try {
            // The rack's ordering picks the record format; a record of the other ordering loads
            // untrusted, naming the mismatch (ordered-sessions.md section 6).
            p.locker = Locker.open(RecordFormat.of(p.s.ordering().wireName()), p.s.baseboard(), slots,
                    Entropy.secure());
        } catch (LockerException e) {
            throw new DaemonException("unusable M.2 slots: " + e.getMessage());
        }
        p.stack.push("locker", p.locker::close);
        // Each M.2 is its own device: a commit writes them at once (D-029).
        p.locker.writeInParallel(SLOT_WRITERS);
    }

    /** The output directory and the journal in it, the daemon's user's alone (issue 22). */
    static void openOutput(Assembly p, Optional<byte[]> key) throws DaemonException {
        try {
            // Job text is private (issue 22): the output directory and the journal in it are the
            // daemon's user's alone, whatever they were before.
            ownerOnly(p.s.output());
            ownerOnly(p.s.output().resolve("journal"));
        } catch (IOException e) {
            throw new DaemonException("cannot create output directory " + p.s.output() + ": " + e.getMessage());
        }
        if (key.isEmpty()) {
            LOG.warn("the journal in " + p.s.output().resolve("journal") + " is NOT sealed: every job's "
                    + "command is stored there in clear; give --journal-key (sush rack init makes one per sled)");
        }
        openBookmarks(p, key);
    }

    /**
     * The bookmark file beside the journal (D-053): a restart in the same universe and the same
     * kernel boot takes its gossip identity back. Without a boot id, or a file that cannot be
     * made, the sled runs without (each life forks a fresh identity, as before) and says so.
     */
    static void openBookmarks(Assembly p, Optional<byte[]> key) {
        Optional<String> boot = BookmarkFile.bootId();
        if (boot.isEmpty()) {
            LOG.warn("no kernel boot id: the gossip identity is not kept over restarts (each life forks one)");
            return;
        }
        Path file = BookmarkFile.in(p.s.output());
        try {
            BookmarkFile bookmarks = BookmarkFile.open(file, key, Entropy.secure(), boot.get(), LOG::warn);
            p.identity = bookmarks;
            p.stack.push("bookmarks", bookmarks::close);
        } catch (IOException e) {
            LOG.warn("cannot keep the gossip identity in " + file + " (" + e.getMessage()
                    + "): each life forks one");
        }
    }

    /** The rack's TLS (when given), the gossip transport and node, listening once this returns. */
    static void openGossip(Assembly p) throws DaemonException {
        Settings s = p.s;
        String[] hostPort = split(s.gossip(), "--gossip");
        if (s.tls().isPresent()) {
            TlsFiles f = s.tls().get();
            try {
                p.tls = Optional.of(GossipTls.load(f.ca(), f.cert(), f.key(), f.revoked()));
            } catch (GossipTls.TlsException e) {
                throw new DaemonException("gossip TLS: " + e.getMessage());
            }
            if (!p.tls.get().myIdentity().equals(s.baseboard())) {
                throw new DaemonException("gossip TLS: " + f.cert() + " names sled " + p.tls.get().myIdentity()
                        + ", not " + s.baseboard());
            }
        } else {
            LOG.warn("gossip is plain TCP (--insecure-gossip): any host that reaches "
                    + s.gossip() + " can join this rack and inject messages; use it for tests only");
        }
        p.transport = new TcpTransport(hostPort[0], Integer.parseInt(hostPort[1]), Duration.ofSeconds(2), p.tls);
        // Gossip names a sled by its gossip address: what its peers dial is what they admit.
        // The documented rack defaults (D-008): a session every 30 s per link as the safety net,
        // links idle for 90 s closed; redial from 50 ms up to 2 s.
        GossipConfig defaults = GossipConfig.defaults(s.gossip());
        p.node = new GossipNode(new GossipConfig(s.gossip(), defaults.sessionTimeout(),
                defaults.idleTimeout(), defaults.periodicSync(), Duration.ofMillis(50), Duration.ofSeconds(2)),
                p.transport, Schedulers.parallel(), Entropy.secure());
        p.node.keepIdentity(p.identity);
        // Stopping the node closes its links and its transport, started or not.
        p.stack.push("gossip", p.node::stop);
    }

    /**
     * The launcher, the journal, the sled's threads and runtime, the event observers, the
     * operators' authority and the API's handlers; the sled and its gossip are started.
     */
    static void openSled(Assembly p, TrustStore trust, Optional<byte[]> key, Consumer<SledEvent> observer)
            throws DaemonException {
        Settings s = p.s;
        Scheduler loop = Schedulers.newSingle("sled-loop");
        p.stack.push("sled loop", loop::dispose);
        Scheduler writer = Schedulers.newSingle("boundary-writer");
        p.stack.push("boundary writer", writer::dispose);
        // A full output disk is a state the sled recovers from (issue 35, D-046): outputs stop at
        // the reserve, the journal keeps half of it, and jobs are refused while it is short.
        DiskReserve disk;
        try {
            disk = DiskReserve.of(s.output(), s.diskReserveBytes());
        } catch (IOException e) {
            throw new DaemonException("cannot read the free space of " + s.output() + ": " + e.getMessage());
        }
        p.launcher = new ProcessLauncher(s.output(), disk);
        p.stack.push("launcher", p.launcher::close);
        p.journal = Optional.of(Journal.open(s.output().resolve("journal"), key, Entropy.secure(),
                s.journalMaxBytes(), disk));
        p.stack.push("journal", () -> closeJournal(p));
        // The sled's clocks stamp its jobs' start and end on their statuses (shown, never ordering).
        p.cfg = new SledConfig(new Sled(s.baseboard(), s.cubby()), trust, SOFTWARE, s.jobLimits(),
                Optional.of(SledClock.system()), s.apiUrl()).withDisk(disk);
        if (p.settling.isPresent()) {
            p.cfg = p.cfg.withSettling(p.settling.get());
        }
        // Deliveries are decoded and their signatures checked on workers of their own, ahead of
        // the sled's single-threaded state machine (D-019), so a burst of checks never delays
        // the gossip node's timers on the shared parallel scheduler.
        Scheduler ingress = Schedulers.newParallel("sush-ingress", Math.max(1, Runtime.getRuntime().availableProcessors()));
        p.stack.push("ingress", ingress::dispose);
        p.runtime = new SledRuntime(p.cfg, Gossip.of(p.node), p.locker, p.launcher, p.journal, loop, writer, ingress);
        // D-060: a sled with its rack CA's certificate signs receipts with its key.
        p.tls.ifPresent(t -> p.runtime.signReceipts(new TlsReceiptSigner(t)));
        p.stack.push("sled", p.runtime::halt);
        Housekeeping housekeeping = observe(p, observer);
        logSlots(p);
        try {
            // Revoked operators are kept beside the journal, never on the M.2s, and read before
            // the API serves (issue 36): a restarted sled never honours a revoked key, not even briefly.
            p.authority = new Authority(s.operators(), System::currentTimeMillis, Entropy.secure(),
                    Optional.of(s.output().resolve(REVOKED_OPERATORS)));
        } catch (IOException e) {
            throw new DaemonException("operators: " + e.getMessage());
        }
        // Issue 41: the signer-trust changes this sled applied, read before it folds anything (a
        // restarted sled never trusts a revoked signer, not even briefly); kept changes were
        // authorized when made, so an operator revoked since does not take them back.
        try {
            p.cfg.trust().authorizingChangesWith(p.authority::signedByAnOperator);
            p.authority.signerTrust().read().forEach(p.cfg.trust()::apply);
        } catch (IOException e) {
            throw new DaemonException("signer trust: " + e.getMessage());
        }
        p.cfg.trust().authorizingChangesWith(p.authority::authorizes);
        // The API's authority listens before the sled starts: logins in the replayed history count.
        p.api = new ApiServer(p.cfg, p.node, p.runtime, p.locker, p.launcher, Entropy.secure(), p.authority);
        p.api.deletedOutputs(housekeeping.outputs()::wasDeleted);
        housekeeping.api().set(p.api);
        p.api.metrics(p.metrics::scrape);
        p.tls.ifPresent(t -> p.api.relayTrust(t.ca()));
        p.tls.ifPresent(t -> p.api.certificate(t.certificate()));
        p.runtime.start();
        try {
            p.node.start().block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            throw new DaemonException("cannot listen for gossip on " + s.gossip() + ": " + rootMessage(e));
        }
        p.node.setPeers(s.peers(), s.identities());
    }

    /**
     * A sled that failed closed leaves its journal to the process's exit: the journal may be what
     * failed (a full disk under its mapping), and closing it writes to that mapping, which can
     * crash the JVM instead of letting it exit 70 (issue 35).
     */
    static void closeJournal(Assembly p) {
        if (p.runtime != null && p.runtime.failure().isPresent()) {
            LOG.warn("the sled failed closed: its journal is left unclosed to the process's exit");
            return;
        }
        p.journal.ifPresent(Journal::close);
    }

    /** The output budget and the API it asks which outputs are being read (made after it). */
    private record Housekeeping(OutputBudget outputs, AtomicReference<ApiServer> api) {
    }

    /**
     * Subscribes the sled's logs, metrics and {@code observer} to its events, and keeps the
     * output budget after every ending on a thread of its own.
     */
    static Housekeeping observe(Assembly p, Consumer<SledEvent> observer) {
        // One housekeeping thread: the output budget's index is kept by one thread at a time. A
        // thread of its own, where blocking is allowed (issue 35): keeping the budget asks the
        // sled's loop which jobs run and waits for the answer, and a Reactor single scheduler
        // refuses blocking calls, so the budget was never kept.
        Scheduler housekeeping = Schedulers.fromExecutorService(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sush-housekeeping");
            t.setDaemon(true);
            return t;
        }), "sush-housekeeping");
        p.stack.push("housekeeping", housekeeping::dispose);
        OutputBudget outputs = new OutputBudget(p.s.output().resolve("jobs"), p.s.outputMaxBytes(), p.s.outputMaxJobs());
        // The API is made later; the budget asks it which outputs are being read.
        AtomicReference<ApiServer> apiOf = new AtomicReference<>();
        SledRuntime runtime = p.runtime;
        runtime.events().subscribe(e -> {
            try {
                observer.accept(e);
            } catch (RuntimeException err) {
                // An observer's failure never ends the sled's logs and metrics.
                LOG.warn("an event observer failed: {}", err.toString());
            }
            EventLog.log(e);
            p.metrics.on(e);
            if (e instanceof SledEvent.Ended ended) {
                // Off the sled's loop: the output budget is kept after every ending.
                String job = ended.job().codephrase();
                housekeeping.schedule(() -> keepOutputBudget(outputs, job, runtime, apiOf.get()));
            }
        }, err -> LOG.error("the sled's event stream failed", err));
        p.metrics.bind(p.node, runtime, p.s.output().resolve("journal"));
        return new Housekeeping(outputs, apiOf);
    }

    static void logSlots(Assembly p) {
        if (!p.locker.trusted()) {
            LOG.error("the boundary slots are untrusted ({}): this sled runs no job until serviced",
                    p.locker.load().reason());
        } else {
            LOG.info("boundary slots loaded: {} ({}), ordering {}", p.locker.load().verdict(),
                    p.locker.load().reason(), p.s.ordering());
        }
    }

    /** Binds the API (HTTPS off loopback when the rack has certificates) and probes its announced URL. */
    static void serve(Assembly p) throws DaemonException {
        Settings s = p.s;
        String[] apiAt = split(s.api(), "--api");
        boolean loopback = isLoopback(apiAt[0]);
        p.stack.push("API connections", p.api::closeConnections);
        try {
            HttpServer server = HttpServer.create().host(apiAt[0]).port(Integer.parseInt(apiAt[1]))
                    .metrics(true, SledMetrics::uriTemplate);
            if (!loopback && p.tls.isPresent()) {
                // Off loopback the API is HTTPS with the sled's certificate (security.md section 3).
                GossipTls t = p.tls.get();
                SslProvider.GenericSslContextSpec<?> https = Http11SslContextSpec.forServer(t.key(), t.certificate());
                server = server.secure(spec -> spec.sslContext(https));
            }
            p.http = p.api.bind(server);
        } catch (RuntimeException e) {
            throw new DaemonException("cannot serve the API on " + s.api() + ": " + rootMessage(e));
        }
        DisposableServer http = p.http;
        p.stack.push("API", () -> http.disposeNow(Duration.ofSeconds(2)));
        // The address announced to the rack, asked as another sled would ask it (in the background).
        // The probe says its own failures (one typed line each); anything else it throws is said too.
        s.apiUrl().ifPresent(url -> p.api.probeAnnounced(url).subscribe(ok -> { }, e -> LOG.warn(
                "the probe of the API address this sled announces, {}, failed: {}", url, e.toString())));
        if (!loopback && p.tls.isEmpty()) {
            LOG.warn("the API listens on " + s.api() + " over plain HTTP (no rack certificate): "
                    + "operator requests are signed, but their bodies and answers are readable on the network");
        }
    }

    /** Watches the boundary slots for changes made by something else (a missing watch is logged). */
    static void watchSlots(Assembly p) {
        SledRuntime runtime = p.runtime;
        try {
            SlotWatch watch = SlotWatch.start(p.s.m2(), p.locker, change -> {
                LOG.error("{}", change);
                runtime.slotsChanged(change);
            });
            p.stack.push("slot watch", watch::close);
        } catch (IOException e) {
            LOG.warn("cannot watch the boundary slots (" + e.getMessage() + "): a change made to them "
                    + "by something else is found only by the next load");
        }
    }

    /** Deletes the oldest finished jobs' outputs past the sled's output budget (never a running job's). */
    static void keepOutputBudget(OutputBudget outputs, String job, SledRuntime runtime, ApiServer api) {
        try {
            for (Path d : outputs.ended(job, () -> {
                // Kept whatever their age: running jobs', and those a client is reading now.
                Set<String> keep = new HashSet<>(api == null ? Set.of()
                        : api.outputsBeingRead());
                Set<JobId> running = runtime.query(v -> v.running())
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
    private static final ExecutorService SLOT_WRITERS = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "sush-slot-writer");
                t.setDaemon(true);
                return t;
            });

    static TrustStore trust(List<Path> files) throws DaemonException {
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

    static Optional<byte[]> journalKey(Optional<Path> file) throws DaemonException {
        if (file.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Journal.readKey(file.get()));
        } catch (IOException | JournalException e) {
            throw new DaemonException("journal key: " + e.getMessage());
        }
    }

    static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null) {
            r = r.getCause();
        }
        return r.getMessage() == null ? r.toString() : r.getMessage();
    }
}
