package sush.ops.cli;

import java.io.IOException;
import java.math.BigInteger;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.gossip.net.GossipTls;
import sush.ops.audit.AuditCheck;
import sush.ops.audit.Bundle;
import sush.ops.wire.Answers;
import sush.ops.wire.ChainPage;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.Versions;
import sush.projections.id.SessionId;
import sush.projections.job.ClientChain;
import sush.projections.job.KeyException;
import sush.projections.job.TrustStore;

/**
 * {@code sush audit export|verify} (issue 40, D-060): a session's proof of what ran, taken from the
 * rack, and checked offline with no trust in the vendor or the sleds.
 */
@Command(name = "audit", description = "Export a session's signed receipts, and verify them offline.",
        subcommands = {AuditCommand.Export.class, AuditCommand.Verify.class})
public final class AuditCommand implements Callable<Integer> {
    private final Invocation invocation;

    AuditCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    @Command(name = "export", description = "Write a session's grant, requests, burns, every sled's receipts and "
            + "their certificates to one file.")
    static final class Export implements Callable<Integer> {
        @Mixin
        Global g;
        @Option(names = "--session", paramLabel = "ID", description = "the session (default: the active one)")
        String session;
        @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "where to write it")
        Path output;

        @Override
        public Integer call() {
            try {
                Client c = g.client();
                String phrase = session != null ? session : SessionCommand.active(c);
                if (phrase == null) {
                    throw new Client.Failure(4, "no-session", "no session is active: name one with --session");
                }
                SessionId id = SessionCommand.sessionId(phrase);
                SessionStore store = SessionStore.of(g, c);
                Map<String, Object> grant = null;
                try {
                    grant = SignedRequests.grantToJson(store.grant(id));
                } catch (Client.Failure f) {
                    if (f.exit() != 4) {
                        throw f;
                    }
                    // A causal rack's session, or one another operator's client started: no grant kept here.
                }
                List<Map<String, Object>> requests = new ArrayList<>();
                List<String> burns = new ArrayList<>();
                chain(c, store, id, requests, burns);
                Set<Answers.Receipt> receipts = new LinkedHashSet<>();
                Map<String, String> certificates = new TreeMap<>();
                List<String> missed = new ArrayList<>();
                for (Versions.Sled s : c.get("/versions", Versions.class).sleds()) {
                    String board = Said.text(s.baseboard());
                    String sled = URLEncoder.encode(board, StandardCharsets.UTF_8);
                    try {
                        receipts.addAll(c.get("/sessions/" + id.codephrase() + "/receipts?sled=" + sled,
                                Answers.Receipts.class).receipts());
                        certificates.put(board, c.get("/certificate?sled=" + sled, Answers.Certificate.class)
                                .certificate());
                    } catch (Client.Failure f) {
                        missed.add(board + " (" + f.getMessage() + ")");
                    }
                }
                Bundle b = new Bundle(Bundle.FORMAT, id.codephrase(), grant, requests, burns, List.copyOf(receipts),
                        certificates);
                Path file = g.invocation().path(output);
                try {
                    Files.writeString(file, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(b) + "\n");
                } catch (IOException e) {
                    throw new Client.Failure(1, "io", "cannot write " + file + ": " + e.getMessage());
                }
                missed.forEach(m -> g.invocation().err().println("sush: not asked: " + m));
                g.print(Map.of("file", file.toString(), "requests", requests.size(), "receipts", receipts.size(),
                        "sleds", certificates.size()), "wrote " + file + ": " + requests.size() + " requests, "
                        + burns.size() + " burns, " + receipts.size() + " receipts of " + certificates.size() + " sleds");
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }

        /** The session's requests and burns: as this client kept them, else as the sled holds its chain. */
        private static void chain(Client c, SessionStore store, SessionId id, List<Map<String, Object>> requests,
                List<String> burns) throws Client.Failure {
            List<ClientChain.Entry> kept = store.chain(id).chain().entries();
            if (!kept.isEmpty()) {
                for (ClientChain.Entry e : kept) {
                    if (e instanceof ClientChain.Entry.Request) {
                        requests.add(SignedRequests.toJson(((ClientChain.Entry.Request) e).job()));
                    } else if (e instanceof ClientChain.Entry.Burn) {
                        burns.add(((ClientChain.Entry.Burn) e).position().codephrase());
                    }
                }
                return;
            }
            String after = null;
            for (int page = 0; page < 1 << 16; page++) {
                ChainPage p = c.get("/sessions/" + id.codephrase() + "/chain" + (after == null ? "" : "?after="
                        + after), ChainPage.class);
                for (ChainPage.Link e : p.links()) {
                    if (e.request() != null) {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> r = Json.MAPPER.convertValue(e.request(), Map.class);
                        requests.add(r);
                    } else if (Boolean.TRUE.equals(e.burn())) {
                        burns.add(e.position());
                    }
                    after = e.position();
                }
                if (!Boolean.TRUE.equals(p.more())) {
                    return;
                }
            }
        }
    }

    @Command(name = "verify", description = "Check a bundle offline: signers, receipts, at most once, outputs.")
    static final class Verify implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(paramLabel = "FILE", description = "the bundle `sush audit export` wrote")
        Path file;
        @Option(names = "--trust", required = true, paramLabel = "PUBKEY", description = "a trusted signer's public "
                + "key (PEM); repeat for several")
        List<Path> trust;
        @Option(names = "--revoked", paramLabel = "FILE", description = "the CA's revoked serials (hex, one a line)")
        Path revoked;
        @Option(names = "--outputs", paramLabel = "DIR", description = "outputs fetched as DIR/JOB/SLED/stdout|stderr: "
                + "their SHA3-256 must match the receipts")
        Path outputs;

        @Override
        public Integer call() {
            try {
                Invocation in = g.invocation();
                // The global --ca (env SUSH_CA): the rack CA's certificate, which every receipt must chain to.
                Path caFile = g.ca != null ? g.ca : Optional.ofNullable(in.getenv("SUSH_CA")).map(Path::of).orElse(null);
                if (caFile == null) {
                    throw new Client.Failure(2, "no-ca", "audit verify needs the rack CA's certificate: --ca FILE");
                }
                X509Certificate caCert = GossipTls.readCertificate(in.path(caFile));
                List<String> pems = new ArrayList<>();
                for (Path p : trust) {
                    pems.add(Files.readString(in.path(p)));
                }
                Set<BigInteger> serials = new HashSet<>();
                if (revoked != null) {
                    for (String line : Files.readAllLines(in.path(revoked))) {
                        String l = line.replaceAll("#.*", "").strip();
                        if (!l.isEmpty()) {
                            serials.add(new BigInteger(l, 16));
                        }
                    }
                }
                Bundle b = Json.MAPPER.readValue(Files.readString(in.path(file)), Bundle.class);
                AuditCheck.Report r = new AuditCheck(caCert, TrustStore.of(pems), serials, Optional.ofNullable(
                        outputs).map(in::path)).check(b);
                StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%-4s %-50s %-28s %-12s %s%n",
                        "pos", "job", "sled", "commit", "ending"));
                for (AuditCheck.Row row : r.rows()) {
                    text.append(String.format(Locale.ROOT, "%-4d %-50s %-28s %-12s %s%n", row.ordinal(), row.job(),
                            Client.printable(row.sled()), row.commit(), Client.printable(row.ending())));
                }
                r.problems().forEach(p -> text.append("PROBLEM ").append(Client.printable(p)).append('\n'));
                r.open().forEach(p -> text.append("OPEN ").append(Client.printable(p)).append('\n'));
                text.append(r.ok() ? "verified: " + r.rows().size() + " (job, sled) pairs, no job committed twice"
                        : r.problems().size() + " problems");
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("ok", r.ok());
                doc.put("rows", r.rows());
                doc.put("problems", r.problems());
                doc.put("open", r.open());
                g.print(doc, text.toString());
                return r.ok() ? 0 : 7;
            } catch (Client.Failure f) {
                return g.fail(f);
            } catch (GossipTls.TlsException | KeyException | IOException | RuntimeException e) {
                return g.fail(new Client.Failure(2, "bad-input", "audit verify: " + e.getMessage()));
            }
        }
    }
}
