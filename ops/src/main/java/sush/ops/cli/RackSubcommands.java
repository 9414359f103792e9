package sush.ops.cli;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.gossip.net.GossipTls;
import sush.gossip.net.RackCa;
import sush.ops.daemon.RackFile;
import sush.projections.fold.Ordering;

/**
 * The subcommands of {@code sush rack} (init, up, down, status, restart, peers, issue, revoke),
 * moved out of {@link RackCommand}, which keeps what they share: writing a rack, starting, finding
 * and stopping its daemons. Each works on the rack directory {@code --dir}, taken in the
 * invocation's working directory, and names it in what it prints as the operator gave it.
 */
final class RackSubcommands {
    private RackSubcommands() {
    }

    @Command(name = "init", description = "Write rack.json, the signer key, the rack CA and every sled's certificate "
            + "into DIR, and provision the slots; start nothing.")
    static final class Init implements Callable<Integer> {
        @Option(names = "--sleds", defaultValue = "4", description = "how many sleds (default: ${DEFAULT-VALUE})")
        int sleds;
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;
        @Option(names = "--ordering", defaultValue = "signed", description = "the rack's session ordering: signed "
                + "(the signer's total order) or causal (default: ${DEFAULT-VALUE})")
        String ordering;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Init(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            if (Files.exists(at.resolve("rack.json"))) {
                invocation.err().println("sush rack init: " + dir.resolve("rack.json") + " exists; nothing written");
                return 2;
            }
            RackFile r = RackCommand.create(at, sleds, RackCommand.basePort(sleds), Ordering.parse(ordering));
            invocation.out().println("rack of " + r.sleds().size() + " sleds in " + dir + "; CA "
                    + dir.resolve(RackCa.CA_CERT) + " (its key " + dir.resolve(RackCa.CA_KEY)
                    + " stays off the sleds)");
            return 0;
        }
    }

    @Command(name = "issue", description = "Issue a sled certificate from the rack CA in DIR (a new or replaced sled).")
    static final class Issue implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;
        @Option(names = "--out", description = "where to write sled.crt and sled.key (default: the sled's tls directory)")
        Path out;
        @Option(names = "--days", defaultValue = "365", description = "how long the certificate is valid (default: "
                + "${DEFAULT-VALUE} days)")
        int days;
        @Parameters(paramLabel = "BASEBOARD", description = "the sled's baseboard")
        String board;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Issue(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            RackCa ca;
            try {
                ca = RackCa.load(at, new SecureRandom());
            } catch (RackCa.CaException e) {
                invocation.err().println("sush rack issue: " + e.getMessage());
                return 2;
            }
            Path where = out;
            if (where == null) {
                Optional<RackFile> r = Files.exists(at.resolve("rack.json")) ? Optional.of(RackFile.read(
                        at.resolve("rack.json"))) : Optional.empty();
                where = r.flatMap(RackFile::tls).map(t -> t.sledDirs().get(board)).orElse(null);
                if (where == null) {
                    invocation.err().println("sush rack issue: " + board + " is not a sled of " + dir
                            + "; give --out DIR");
                    return 2;
                }
            }
            X509Certificate c = ca.issue(board, invocation.path(where), Instant.now()
                    .minus(Duration.ofMinutes(5)), Duration.ofDays(days));
            invocation.out().println("issued " + board + " generation " + GossipTls.generation(c) + " serial "
                    + c.getSerialNumber().toString(16) + " until "
                    + c.getNotAfter().toInstant() + " -> " + where);
            return 0;
        }
    }

    @Command(name = "revoke", description = "Revoke a sled's certificates: every one the rack CA in DIR issued to "
            + "BASEBOARD up to now (by baseboard and generation; one issued later is accepted), or one certificate "
            + "with --serial; SIGHUP (or `rack peers`) makes every daemon re-read the list and close the links.")
    static final class Revoke implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;
        @Option(names = "--serial", paramLabel = "HEX", description = "revoke only the certificate with this serial "
                + "(as `rack issue` printed it)")
        String serial;
        @Parameters(paramLabel = "BASEBOARD", arity = "0..1", description = "the sled's baseboard")
        String board;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Revoke(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            if ((serial == null) == (board == null)) {
                invocation.err().println("sush rack revoke: give a BASEBOARD (all its certificates) or --serial HEX "
                        + "(one)");
                return 2;
            }
            RackFile r = RackFile.read(at.resolve("rack.json"));
            try {
                if (serial != null) {
                    BigInteger s;
                    try {
                        s = new BigInteger(serial.replace(":", ""), 16);
                    } catch (NumberFormatException e) {
                        invocation.err().println("sush rack revoke: --serial is hexadecimal, not " + serial);
                        return 2;
                    }
                    RackCa.revokeSerial(at, s);
                    invocation.out().println("revoked serial " + s.toString(16));
                } else {
                    long upTo = RackCa.revokeSled(at, board);
                    invocation.out().println("revoked every certificate of " + board + " up to generation " + upTo
                            + (upTo == 0 ? " (none was issued with a generation: all of them)" : "")
                            + "; `sush rack issue " + board + "` gives it a new one");
                }
            } catch (RackCa.CaException e) {
                invocation.err().println("sush rack revoke: " + e.getMessage());
                return 2;
            }
            for (RackFile.SledEntry s : r.sleds()) {
                RackCommand.hangup(s);
            }
            return 0;
        }
    }

    @Command(name = "up", description = "Write rack.json and keys into DIR (once), provision, start every daemon.")
    static final class Up implements Callable<Integer> {
        @Option(names = "--sleds", defaultValue = "4", description = "how many sleds (default: ${DEFAULT-VALUE})")
        int sleds;
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;
        @Option(names = "--ordering", description = "a new rack's session ordering: signed (the signer's total "
                + "order, the default) or causal; an existing rack keeps the one in its rack.json")
        String orderingName;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Up(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            Ordering ordering = orderingName == null ? null : Ordering.parse(orderingName);
            RackFile existing = Files.exists(at.resolve("rack.json")) ? RackFile.read(at.resolve("rack.json")) : null;
            if (existing != null && ordering != null && ordering != existing.ordering()) {
                invocation.err().println("sush rack up: " + dir.resolve("rack.json") + " is a rack of the "
                        + existing.ordering() + " ordering; its sleds' records are of it (`sush locker convert` turns "
                        + "causal into signed)");
                return 2;
            }
            RackFile r = existing != null ? existing : RackCommand.create(at, sleds, RackCommand.basePort(sleds),
                    ordering == null ? Ordering.SIGNED : ordering);
            for (RackFile.SledEntry s : r.sleds()) {
                if (RackCommand.running(s).isEmpty()) {
                    RackCommand.start(at, s);
                }
            }
            int bad = 0;
            for (RackFile.SledEntry s : r.sleds()) {
                String why = RackCommand.awaitSled(at, s, Duration.ofSeconds(30));
                bad += why == null ? 0 : 1;
                invocation.out().println(s.baseboard() + "  http://" + s.api() + (why == null ? ""
                        : "  (" + why + ")"));
            }
            invocation.out().println("signer key: " + dir.resolve("signer.key") + "   operator key: "
                    + dir.resolve(RackCommand.OPERATOR_KEY) + "   for the commands that follow, in bash:");
            invocation.out().println(exportLine(at, r));
            return bad == 0 ? 0 : 1;
        }

        /**
         * The {@code export} command line, for bash, that every later command of this rack needs:
         * the signer key, the operator key (whose login every client command makes) and the first
         * sled's API, absolute and quoted for the shell, so a new user can paste it as it is.
         */
        static String exportLine(Path at, RackFile r) {
            Path abs = at.toAbsolutePath().normalize();
            return "export SUSH_SIGNER_KEY=" + JobRequests.shellQuote(abs.resolve("signer.key").toString())
                    + " SUSH_OPERATOR_KEY=" + JobRequests.shellQuote(abs.resolve(RackCommand.OPERATOR_KEY).toString())
                    + " SUSH_URL=" + JobRequests.shellQuote("http://" + r.sleds().get(0).api());
        }
    }

    @Command(name = "down", description = "Stop every daemon of the rack (SIGTERM: running jobs are killed and reported).")
    static final class Down implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Down(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            for (RackFile.SledEntry s : RackFile.read(at.resolve("rack.json")).sleds()) {
                RackCommand.stop(s, false);
                invocation.out().println(s.baseboard() + "  stopped");
            }
            return 0;
        }
    }

    @Command(name = "status", description = "List the rack's daemons.")
    static final class Status implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Status(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            for (RackFile.SledEntry s : RackFile.read(at.resolve("rack.json")).sleds()) {
                Optional<ProcessHandle> p = RackCommand.running(s);
                invocation.out().println(s.baseboard() + "  cubby " + s.cubby() + "  " + (p.isPresent()
                        ? "running (pid " + p.get().pid() + ")  http://" + s.api() : "stopped"));
            }
            return 0;
        }
    }

    @Command(name = "restart", description = "Stop one sled (kill -9 with --hard) and start it again.")
    static final class Restart implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;
        @Option(names = "--hard", description = "kill -9 instead of SIGTERM: the daemon gets no chance to report")
        boolean hard;
        @Parameters(paramLabel = "BASEBOARD", description = "the sled's baseboard")
        String board;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Restart(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            RackFile r = RackFile.read(at.resolve("rack.json"));
            RackFile.SledEntry s = r.sled(board).orElseThrow(() -> new IllegalArgumentException("no sled " + board));
            RackCommand.stop(s, hard);
            RackCommand.start(at, s);
            String why = RackCommand.awaitSled(at, s, Duration.ofSeconds(30));
            invocation.out().println(board + (why == null ? "  restarted" : "  did not come back: " + why));
            return why == null ? 0 : 1;
        }
    }

    @Command(name = "peers", description = "Set one sled's peer list (baseboards) and apply it live (SIGHUP).")
    static final class Peers implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "rack", description = "the rack's directory (default: ${DEFAULT-VALUE})")
        Path dir;
        @Parameters(index = "0", paramLabel = "BASEBOARD", description = "the sled's baseboard")
        String board;
        @Parameters(index = "1", arity = "0..1", paramLabel = "B1,B2,...", description = "omit for every other sled")
        String list;

        /** Where this command runs: its streams, and the directory {@code --dir} is relative to. */
        private final Invocation invocation;

        Peers(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws Exception {
            Path at = invocation.path(dir);
            Path file = at.resolve("rack.json");
            RackFile r = RackFile.read(file);
            List<RackFile.SledEntry> sleds = new ArrayList<>();
            for (RackFile.SledEntry s : r.sleds()) {
                sleds.add(!s.baseboard().equals(board) ? s : new RackFile.SledEntry(s.baseboard(), s.cubby(), s.gossip(),
                        s.api(), s.m2(), s.output(), list == null ? Optional.empty() : Optional.of(List.of(list.split(",")))));
            }
            r.withSleds(sleds).write(file);
            RackFile.SledEntry s = r.sled(board).orElseThrow(() -> new IllegalArgumentException("no sled " + board));
            boolean live = RackCommand.running(s).isPresent();
            RackCommand.hangup(s);
            invocation.out().println(board + " peers: " + (list == null ? "every other sled" : list)
                    + (live ? " (applied)" : " (applies when it starts)"));
            return 0;
        }
    }
}
