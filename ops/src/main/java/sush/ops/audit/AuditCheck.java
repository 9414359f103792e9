package sush.ops.audit;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

import sush.gossip.net.GossipTls;
import sush.ops.wire.Answers;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.projections.id.Chain;
import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.KeyException;
import sush.projections.job.Receipt;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.job.TrustStore;

/**
 * {@code sush audit verify} (issue 40, D-060), offline: a session's bundle against the rack CA's
 * certificate, the signer keys trusted, the CA's revoked serials and, when given, the outputs
 * fetched. Each job is signed by a trusted signer in the bundle's session (under its grant,
 * whose signature is checked too); each receipt by a certificate of that CA naming its sled, not
 * revoked; per sled and life (the process its records were stored by), commit sequences strictly
 * increase along the chain; no job has two commit receipts of a sled (at most once, proven), and no
 * sled committed on two branches of the chain; every ending of a run has its commit; output hashes match the
 * files given. Every finding names what it is about; a commit with no ending yet is open, not a
 * fault (the job may still run, or its sled is down).
 */
public final class AuditCheck {
    /** One job on one sled, as the receipts say. */
    public record Row(String job, int ordinal, String sled, String commit, String ending) {
    }

    /**
     * What the check found: a row per job and sled, every problem, and what is open (a commit
     * with no ending yet: the job may still run, or its sled is down; not a fault of the bundle).
     */
    public record Report(List<Row> rows, List<String> problems, List<String> open) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    private final X509Certificate ca;
    private final TrustStore trust;
    private final Set<BigInteger> revoked;
    private final Optional<Path> outputs;
    private final List<String> problems = new ArrayList<>();

    public AuditCheck(X509Certificate ca, TrustStore trust, Set<BigInteger> revoked, Optional<Path> outputs) {
        this.ca = ca;
        this.trust = trust;
        this.revoked = Set.copyOf(revoked);
        this.outputs = outputs;
    }

    public Report check(Bundle b) {
        problems.clear();
        if (!Bundle.FORMAT.equals(b.format())) {
            problems.add("not a " + Bundle.FORMAT + " bundle (format " + b.format() + ")");
            return new Report(List.of(), List.copyOf(problems), List.of());
        }
        SessionId session;
        try {
            session = SessionId.parse(String.valueOf(b.sessionId()));
        } catch (IdException e) {
            problems.add("session_id: " + e.getMessage());
            return new Report(List.of(), List.copyOf(problems), List.of());
        }
        checkGrant(b, session);
        Map<JobId, Integer> ordinals = requests(b, session);
        String rack = commonName(ca.getSubjectX500Principal().getName());
        Map<String, X509Certificate> certs = certificates(b);
        // Per (job, sled): its commit receipts and its endings, each receipt once.
        Map<String, List<Receipt>> commits = new TreeMap<>();
        Map<String, List<Receipt>> endings = new TreeMap<>();
        Map<String, Boolean> seen = new HashMap<>();
        for (Answers.Receipt w : b.receipts() == null ? List.<Answers.Receipt>of() : b.receipts()) {
            Optional<Receipt> r = receipt(w, certs, rack, session);
            if (r.isEmpty()) {
                continue;
            }
            Receipt x = r.get();
            if (seen.put(w.body(), true) != null) {
                // An ending told again (a restart re-tells them), signed anew; or a commit receipt
                // held twice: one record (its life and sequence name it), one commit.
                continue;
            }
            if (!ordinals.containsKey(x.job())) {
                problems.add("receipt of " + x.sled() + " for job " + x.job().codephrase() + ": not a request of the "
                        + "session");
            }
            String key = x.job().codephrase() + " " + x.sled();
            (x.kind() == Receipt.Kind.COMMIT ? commits : endings).computeIfAbsent(key, k -> new ArrayList<>()).add(x);
        }
        List<Row> rows = new ArrayList<>();
        List<String> open = new ArrayList<>();
        Map<String, TreeMap<Integer, Long>> byLife = new TreeMap<>();
        Map<String, Map<Integer, String>> atOrdinal = new TreeMap<>();
        Set<String> keys = new java.util.TreeSet<>(commits.keySet());
        keys.addAll(endings.keySet());
        for (String key : keys) {
            List<Receipt> c = commits.getOrDefault(key, List.of());
            List<Receipt> e = endings.getOrDefault(key, List.of());
            Receipt any = c.isEmpty() ? e.get(0) : c.get(0);
            String job = any.job().codephrase();
            if (c.size() > 1) {
                problems.add("job " + job + " has " + c.size() + " commit receipts of sled " + any.sled()
                        + ": committed twice");
            }
            boolean ran = e.stream().anyMatch(x -> x.kind() == Receipt.Kind.END && "stopped".equals(x.status()));
            boolean interrupted = e.stream().anyMatch(x -> x.kind() == Receipt.Kind.END
                    && "interrupted".equals(x.status()));
            if (ran && c.isEmpty()) {
                problems.add("job " + job + " ended on " + any.sled() + " (" + ending(e) + ") without a commit receipt");
            } else if (interrupted && c.isEmpty()) {
                // Said from a boundary record after a crash: the crash may have come between the
                // commit and its receipt (signed after the launch), or the record is a failed
                // commit's that one slot kept. Nothing ran twice; what ran is not proven either.
                open.add("job " + job + " was interrupted on " + any.sled() + " with no commit receipt (a crash "
                        + "between its commit and the receipt, or a commit that failed on one slot): whether it "
                        + "started is not proven");
            }
            if (!c.isEmpty() && e.isEmpty()) {
                open.add("job " + job + " was committed on " + any.sled() + " and has no ending receipt yet");
            }
            int ordinal = ordinals.getOrDefault(any.job(), -1);
            if (!c.isEmpty() && ordinal >= 0) {
                String other = atOrdinal.computeIfAbsent(any.sled(), k -> new HashMap<>()).put(ordinal, job);
                if (other != null) {
                    problems.add("sled " + any.sled() + " committed two jobs at chain position " + ordinal + " ("
                            + other + " and " + job + "): it followed two branches of the chain");
                }
                String life = "sled " + any.sled() + " (life " + c.get(0).life() + ")";
                byLife.computeIfAbsent(life, k -> new TreeMap<>()).put(ordinal, c.get(0).sequence());
            }
            e.stream().filter(x -> "stopped".equals(x.status())).findFirst().ifPresent(x -> outputsMatch(x));
            rows.add(new Row(job, ordinal, any.sled(), c.isEmpty() ? "-" : "seq " + Long.toUnsignedString(
                    c.get(0).sequence()), e.isEmpty() ? "-" : ending(e)));
        }
        byLife.forEach((sled, seqs) -> {
            long last = -1;
            int lastAt = -1;
            for (Map.Entry<Integer, Long> at : seqs.entrySet()) {
                if (last >= 0 && Long.compareUnsigned(at.getValue(), last) <= 0) {
                    problems.add(sled + ": the commit at chain position " + at.getKey() + " has record "
                            + "sequence " + Long.toUnsignedString(at.getValue()) + ", not after " + Long.toUnsignedString(
                                    last) + " of position " + lastAt);
                }
                last = at.getValue();
                lastAt = at.getKey();
            }
        });
        rows.sort((x, y) -> x.ordinal() != y.ordinal() ? Integer.compare(x.ordinal(), y.ordinal())
                : x.sled().compareTo(y.sled()));
        return new Report(rows, List.copyOf(problems), List.copyOf(open));
    }

    private static String ending(List<Receipt> e) {
        Receipt last = e.get(e.size() - 1);
        for (Receipt x : e) {
            if (x.kind() == Receipt.Kind.END) {
                last = x;
            }
        }
        return last.status() + (last.exitCode() != null ? " exit " + last.exitCode() : "")
                + (last.reason() != null ? " " + last.reason() : "");
    }

    private void checkGrant(Bundle b, SessionId session) {
        if (b.grant() == null) {
            return; // a causal rack's session: no grant to check
        }
        try {
            SignedGrant g = SignedRequests.grantFromJson(Json.MAPPER.valueToTree(b.grant()));
            Optional<InvalidJobReason> bad = trust.grant(g);
            if (bad.isPresent()) {
                problems.add("grant: " + bad.get().name().toLowerCase(java.util.Locale.ROOT));
            }
            if (!g.grant().session().equals(session)) {
                problems.add("grant: it grants session " + g.grant().session().codephrase() + ", not "
                        + session.codephrase());
            }
        } catch (SignedRequests.BadRequest | RuntimeException e) {
            problems.add("grant: unreadable: " + e.getMessage());
        }
    }

    /** The signed requests by position, each checked; their ordinals along the chain from the session's start. */
    private Map<JobId, Integer> requests(Bundle b, SessionId session) {
        Map<JobId, SignedJob> byPosition = new HashMap<>();
        for (Map<String, Object> r : b.requests() == null ? List.<Map<String, Object>>of() : b.requests()) {
            try {
                SignedJob j = SignedRequests.fromJson(Json.MAPPER.valueToTree(r));
                Optional<InvalidJobReason> bad = trust.check(j, session);
                if (bad.isPresent()) {
                    problems.add("request " + j.request().job().codephrase() + ": "
                            + bad.get().name().toLowerCase(java.util.Locale.ROOT));
                }
                byPosition.put(j.request().job(), j);
            } catch (SignedRequests.BadRequest | RuntimeException e) {
                problems.add("a request is unreadable: " + e.getMessage());
            }
        }
        Set<JobId> burns = new java.util.HashSet<>();
        for (String p : b.burns() == null ? List.<String>of() : b.burns()) {
            try {
                burns.add(JobId.parse(p));
            } catch (IdException e) {
                problems.add("a burn is unreadable: " + e.getMessage());
            }
        }
        // The chain from the session's first position: a position holds a request, a burn, or
        // both (a burn sent for a position a request already took: two branches, and the sleds
        // each follow one), so it is walked as the tree it is; a request's ordinal is its depth.
        Map<JobId, Integer> ordinals = new LinkedHashMap<>();
        Map<JobId, Integer> depth = new HashMap<>();
        java.util.ArrayDeque<JobId> next = new java.util.ArrayDeque<>();
        depth.put(Chain.first(session), 0);
        next.add(Chain.first(session));
        while (!next.isEmpty()) {
            JobId at = next.poll();
            int n = depth.get(at);
            SignedJob j = byPosition.get(at);
            if (j != null) {
                ordinals.put(at, n);
                if (depth.putIfAbsent(j.request().successor(), n + 1) == null) {
                    next.add(j.request().successor());
                }
            }
            if (burns.contains(at) && depth.putIfAbsent(Chain.afterBurn(at), n + 1) == null) {
                next.add(Chain.afterBurn(at));
            }
        }
        byPosition.keySet().stream().filter(p -> !ordinals.containsKey(p)).forEach(p -> problems.add("request "
                + p.codephrase() + " is not on the session's chain from its first position"));
        return ordinals;
    }

    private Map<String, X509Certificate> certificates(Bundle b) {
        Map<String, X509Certificate> out = new HashMap<>();
        (b.certificates() == null ? Map.<String, String>of() : b.certificates()).forEach((sled, pem) -> {
            try {
                X509Certificate c = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(
                        new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
                c.verify(ca.getPublicKey());
                if (!GossipTls.identity(c).map(sled::equals).orElse(false)) {
                    problems.add("certificate of " + sled + " names " + GossipTls.identity(c).orElse("no sled"));
                } else if (revoked.contains(c.getSerialNumber())) {
                    problems.add("certificate of " + sled + " (serial " + c.getSerialNumber().toString(16)
                            + ") is revoked: its receipts are not taken");
                } else {
                    out.put(sled, c);
                }
            } catch (GeneralSecurityException | RuntimeException e) {
                problems.add("certificate of " + sled + " is not the rack CA's: " + e.getMessage());
            }
        });
        return out;
    }

    /** A receipt whose signature, sled, rack and session check out; else a problem naming it. */
    private Optional<Receipt> receipt(Answers.Receipt w, Map<String, X509Certificate> certs, String rack,
            SessionId session) {
        byte[] body = w.body() == null ? new byte[0] : w.body().getBytes(StandardCharsets.US_ASCII);
        String name = "receipt of " + w.sled() + " (" + firstLines(w.body()) + ")";
        X509Certificate c = certs.get(w.sled());
        if (c == null) {
            problems.add(name + ": no certificate of the rack CA for sled " + w.sled() + " (or it is revoked)");
            return Optional.empty();
        }
        try {
            Signature s = Signature.getInstance("SHA256withECDSA");
            s.initVerify(c.getPublicKey());
            s.update(body);
            if (!s.verify(Base64.getDecoder().decode(String.valueOf(w.signature())))) {
                problems.add(name + ": the signature does not match (altered)");
                return Optional.empty();
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            problems.add(name + ": the signature cannot be checked: " + e.getMessage());
            return Optional.empty();
        }
        try {
            Receipt r = Receipt.parse(body);
            if (!r.sled().equals(w.sled())) {
                problems.add(name + ": signed by " + w.sled() + " but names sled " + r.sled());
            } else if (!r.rack().equals(rack)) {
                problems.add(name + ": of rack " + r.rack() + ", not " + rack);
            } else if (!r.session().equals(session)) {
                problems.add(name + ": of session " + r.session().codephrase() + ", not this one");
            } else {
                return Optional.of(r);
            }
        } catch (KeyException e) {
            problems.add(name + ": " + e.getMessage());
        }
        return Optional.empty();
    }

    private void outputsMatch(Receipt r) {
        if (outputs.isEmpty()) {
            return;
        }
        for (String stream : new String[] {"stdout", "stderr"}) {
            Path f = outputs.get().resolve(r.job().codephrase()).resolve(r.sled()).resolve(stream);
            if (!Files.exists(f)) {
                continue;
            }
            byte[] want = stream.equals("stdout") ? r.stdoutSha3() : r.stderrSha3();
            try {
                MessageDigest d = MessageDigest.getInstance("SHA3-256");
                byte[] got = d.digest(Files.readAllBytes(f));
                if (want == null || !Arrays.equals(want, got)) {
                    problems.add("output " + f + ": SHA3-256 " + HexFormat.of().formatHex(got) + ", the receipt says "
                            + (want == null ? "none" : HexFormat.of().formatHex(want)));
                }
            } catch (IOException | GeneralSecurityException e) {
                problems.add("output " + f + ": cannot be read: " + e.getMessage());
            }
        }
    }

    private static String firstLines(String body) {
        if (body == null) {
            return "no body";
        }
        String[] l = body.split("\n");
        StringBuilder b = new StringBuilder();
        for (String x : l) {
            if (x.startsWith("kind=") || x.startsWith("job=")) {
                b.append(b.length() == 0 ? "" : ", ").append(x);
            }
        }
        return b.toString();
    }

    /** The CN of an X.500 name, or the whole name when it has none. */
    public static String commonName(String dn) {
        try {
            for (Rdn r : new LdapName(dn).getRdns()) {
                if (r.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(r.getValue());
                }
            }
        } catch (InvalidNameException e) {
            // the whole name then
        }
        return dn;
    }
}
