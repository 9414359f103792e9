package sush.ops.audit;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

import sush.gossip.net.GossipTls;
import sush.gossip.net.RackCa;
import sush.ops.wire.Answers;
import sush.ops.wire.SignedRequests;
import sush.pipeline.sim.SimMain;
import sush.pipeline.sim.Simulation;
import sush.pipeline.sled.ReceiptSigner;
import sush.projections.fold.Ordering;
import sush.projections.id.SessionId;
import sush.projections.job.KeyException;
import sush.projections.job.Receipt;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;

/**
 * Issue 40's audit check on the simulator (D-060): every simulated sled signs its receipts with a
 * key its rack CA's certificate names (one CA, real P-256 keys, each signature drawing from a
 * source seeded by the seed, the sled and its life, so a seed replays the same); after each seed,
 * each session's bundle (what {@code sush audit export} gathers from a rack that lost nothing) goes
 * through {@link AuditCheck}, the code {@code sush audit verify} runs: no problem may be found (a
 * false alarm). Then the bundle is mutated, one way at a time, and every mutation must be caught
 * and named: a byte of a receipt altered, a commit receipt missing before its run's ending, a
 * second commit of a job (validly signed by the sled), two commits' sequences swapped along the
 * chain, the certificate of a sled with receipts revoked.
 *
 * <p>{@code ./bench.sh audit [--seeds N] [--sleds K] [--ordering signed|causal] [--seed S]}.
 */
public final class SimAudit {
    /** What a run of seeds found. */
    public record Figures(int seeds, int simViolations, int bundles, long receipts, Map<String, Long> kinds,
            List<String> falseAlarms, Map<String, int[]> mutations, List<String> missed) {
        /** No false alarm and every mutation tried caught. */
        public boolean ok() {
            return falseAlarms.isEmpty() && missed.isEmpty() && simViolations == 0;
        }
    }

    private final Path dir;
    private final RackCa ca;
    private final Map<String, PrivateKey> keys = new HashMap<>();
    private final Map<String, X509Certificate> certs = new HashMap<>();
    private final Map<String, String> pems = new TreeMap<>();
    private final String rack;
    private final SignerKey key = SimMain.signerKey();
    private final TrustStore trust;

    public SimAudit(Path dir) throws RackCa.CaException, KeyException {
        this.dir = dir;
        this.trust = TrustStore.of(List.of(key.publicPem()));
        this.ca = RackCa.create(dir.resolve("ca"), "sim-rack", new SecureRandom());
        this.rack = AuditCheck.commonName(ca.certificate().getSubjectX500Principal().getName());
    }

    /** Sled {@code baseboard}'s certificate and key, issued by the rack CA the first time it is asked. */
    private synchronized PrivateKey keyOf(String baseboard) {
        return keys.computeIfAbsent(baseboard, b -> {
            try {
                Path home = Files.createDirectories(dir.resolve("sleds").resolve(b.replace(':', '_')));
                ca.issue(b, home);
                certs.put(b, GossipTls.readCertificate(home.resolve(RackCa.SLED_CERT)));
                pems.put(b, Files.readString(home.resolve(RackCa.SLED_CERT)));
                return GossipTls.readKey(home.resolve(RackCa.SLED_KEY));
            } catch (IOException | GossipTls.TlsException | RackCa.CaException e) {
                throw new IllegalStateException("issuing a certificate for " + b, e);
            }
        });
    }

    /** A signer of sled {@code baseboard} in its life {@code life} of seed {@code seed}: the daemon's algorithm. */
    private ReceiptSigner signer(long seed, String baseboard, int life) {
        PrivateKey k = keyOf(baseboard);
        SecureRandom random = seeded(seed + "/" + baseboard + "/" + life);
        return new ReceiptSigner() {
            @Override
            public String rack() {
                return rack;
            }

            @Override
            public byte[] sign(byte[] body) {
                return SimAudit.sign(k, random, body);
            }
        };
    }

    private static SecureRandom seeded(String what) {
        try {
            SecureRandom r = SecureRandom.getInstance("SHA1PRNG");
            r.setSeed(what.getBytes(StandardCharsets.UTF_8));
            return r;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA1PRNG is in every JDK", e);
        }
    }

    private static byte[] sign(PrivateKey k, SecureRandom random, byte[] body) {
        try {
            Signature s = Signature.getInstance("SHA256withECDSA");
            s.initSign(k, random);
            s.update(body);
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("signing a receipt", e);
        }
    }

    /** Runs seeds {@code from..to} on {@code sleds} sleds in {@code ordering}; prints each finding as it comes. */
    public Figures run(long from, long to, int sleds, Ordering ordering, boolean print) {
        int simViolations = 0;
        int bundles = 0;
        long receipts = 0;
        Map<String, Long> kinds = new TreeMap<>();
        List<String> falseAlarms = new ArrayList<>();
        Map<String, int[]> mutations = new TreeMap<>();
        List<String> missed = new ArrayList<>();
        boolean signedOrdering = ordering == Ordering.SIGNED;
        for (long seed = from; seed <= to; seed++) {
            long s = seed;
            Simulation sim = SimMain.configured(new Simulation(seed, sleds, key, trust, ordering))
                    .receipts((board, life) -> signer(s, board, life));
            Simulation.Result r = (signedOrdering ? sim.signerClockGoesBack() : sim)
                    .run(SimMain.schedule(seed, sleds, signedOrdering));
            if (!r.ok()) {
                simViolations++;
                say(print, "seed " + seed + ": the simulator's own checkers: " + r.violations());
            }
            Map<SessionId, Bundle> bySession = bundles(r.signed(), kinds, falseAlarms, seed);
            receipts += r.signed().receipts().size();
            for (Map.Entry<SessionId, Bundle> e : bySession.entrySet()) {
                bundles++;
                AuditCheck.Report report = check(e.getValue(), Set.of());
                for (String p : report.problems()) {
                    String alarm = "seed " + seed + " session " + e.getKey().codephrase() + ": " + p;
                    falseAlarms.add(alarm);
                    say(print, "FALSE ALARM " + alarm);
                }
                mutate(seed, e.getValue(), mutations, missed, print);
            }
        }
        return new Figures((int) (to - from + 1), simViolations, bundles, receipts, kinds, falseAlarms, mutations,
                missed);
    }

    private static void say(boolean print, String line) {
        if (print) {
            System.out.println(line);
        }
    }

    private AuditCheck.Report check(Bundle b, Set<BigInteger> revoked) {
        return new AuditCheck(ca.certificate(), trust, revoked, Optional.empty()).check(b);
    }

    /** Each session's bundle, as the export writes it: its grant, requests, burns, receipts, and the certificates. */
    private Map<SessionId, Bundle> bundles(Simulation.Signed signed, Map<String, Long> kinds, List<String> alarms,
            long seed) {
        Map<SessionId, List<Answers.Receipt>> receipts = new LinkedHashMap<>();
        for (Message.JobReceipt m : signed.receipts()) {
            Receipt x;
            try {
                x = Receipt.parse(m.body());
            } catch (KeyException e) {
                alarms.add("seed " + seed + ": sled " + m.sled() + " signed a receipt that does not read back: "
                        + e.getMessage());
                continue;
            }
            kinds.merge(x.kind().wire(), 1L, Long::sum);
            receipts.computeIfAbsent(x.session(), k -> new ArrayList<>()).add(new Answers.Receipt(m.sled(),
                    new String(m.body(), StandardCharsets.US_ASCII), Base64.getEncoder().encodeToString(m.signature())));
        }
        Map<SessionId, Bundle> out = new LinkedHashMap<>();
        for (SessionId session : signed.sessions()) {
            List<Map<String, Object>> requests = new ArrayList<>();
            for (SignedJob j : signed.requests()) {
                if (j.request().session().equals(session)) {
                    requests.add(SignedRequests.toJson(j));
                }
            }
            List<String> burns = signed.burns().stream().filter(b -> b.session().equals(session))
                    .map(b -> b.position().codephrase()).distinct().toList();
            Map<String, Object> grant = signed.grants().containsKey(session)
                    ? SignedRequests.grantToJson(signed.grants().get(session)) : null;
            out.put(session, new Bundle(Bundle.FORMAT, session.codephrase(), grant, requests, burns,
                    receipts.getOrDefault(session, List.of()), Map.copyOf(pems)));
        }
        return out;
    }

    /** Every mutation of {@code b} that it has the receipts for, each of which must be caught and named. */
    private void mutate(long seed, Bundle b, Map<String, int[]> tried, List<String> missed, boolean print) {
        List<Answers.Receipt> rs = b.receipts();
        if (rs.isEmpty()) {
            return;
        }
        List<Receipt> parsed = new ArrayList<>();
        for (Answers.Receipt w : rs) {
            try {
                parsed.add(Receipt.parse(w.body().getBytes(StandardCharsets.US_ASCII)));
            } catch (KeyException e) {
                return; // said as a false alarm already
            }
        }
        int pick = Math.floorMod(seed * 31, rs.size());
        // One byte of one receipt altered (a digit or letter of its body, so it still reads).
        Answers.Receipt w = rs.get(pick);
        String body = w.body();
        int at = body.indexOf("\njob=") + 6;
        char c = body.charAt(at);
        String altered = body.substring(0, at) + (c == 'a' ? 'b' : 'a') + body.substring(at + 1);
        expect(seed, "altered byte", b.withReceipts(replace(rs, pick, new Answers.Receipt(w.sled(), altered,
                w.signature()))), Set.of(), "the signature does not match (altered)", tried, missed, print);
        // A commit receipt missing before its run's ending.
        for (int i = 0; i < rs.size(); i++) {
            Receipt x = parsed.get(i);
            if (x.kind() == Receipt.Kind.COMMIT && ranThere(parsed, x)) {
                List<Answers.Receipt> less = new ArrayList<>(rs);
                less.remove(i);
                expect(seed, "missing commit", b.withReceipts(less), Set.of(), "without a commit receipt", tried,
                        missed, print);
                break;
            }
        }
        // A second commit of a job: the sled's own key, another record sequence.
        int firstCommit = index(parsed, x -> x.kind() == Receipt.Kind.COMMIT);
        if (firstCommit >= 0) {
            Receipt x = parsed.get(firstCommit);
            Receipt again = Receipt.commit(x.rack(), x.sled(), x.session(), x.job(), x.successor(), x.life(),
                    x.sequence() + 1000);
            List<Answers.Receipt> more = new ArrayList<>(rs);
            more.add(forged(x.sled(), again, seed));
            expect(seed, "second commit", b.withReceipts(more), Set.of(), "committed twice", tried, missed, print);
        }
        // Two commits of one sled in one life with their sequences swapped along the chain.
        for (int i = 0; i < rs.size(); i++) {
            Receipt x = parsed.get(i);
            if (x.kind() != Receipt.Kind.COMMIT) {
                continue;
            }
            int j = index(parsed, y -> y.kind() == Receipt.Kind.COMMIT && y.sled().equals(x.sled())
                    && y.life().equals(x.life()) && !y.job().equals(x.job()) && !y.sequence().equals(x.sequence()));
            if (j >= 0) {
                Receipt y = parsed.get(j);
                Receipt x2 = Receipt.commit(x.rack(), x.sled(), x.session(), x.job(), x.successor(), x.life(),
                        y.sequence());
                Receipt y2 = Receipt.commit(y.rack(), y.sled(), y.session(), y.job(), y.successor(), y.life(),
                        x.sequence());
                List<Answers.Receipt> swapped = replace(replace(rs, i, forged(x.sled(), x2, seed)), j,
                        forged(y.sled(), y2, seed));
                expect(seed, "sequences swapped", b.withReceipts(swapped), Set.of(), "not after", tried, missed,
                        print);
                break;
            }
        }
        // The certificate of a sled with receipts revoked.
        BigInteger serial = certs.get(w.sled()).getSerialNumber();
        expect(seed, "revoked sled", b, Set.of(serial), "is revoked", tried, missed, print);
    }

    /** Whether sled {@code commit.sled()} says the job ran to its end there (an interruption proves less). */
    private static boolean ranThere(List<Receipt> parsed, Receipt commit) {
        return parsed.stream().anyMatch(e -> e.kind() == Receipt.Kind.END && e.job().equals(commit.job())
                && e.sled().equals(commit.sled()) && "stopped".equals(e.status()));
    }

    private static int index(List<Receipt> parsed, Predicate<Receipt> p) {
        for (int i = 0; i < parsed.size(); i++) {
            if (p.test(parsed.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static List<Answers.Receipt> replace(List<Answers.Receipt> rs, int i, Answers.Receipt with) {
        List<Answers.Receipt> out = new ArrayList<>(rs);
        out.set(i, with);
        return out;
    }

    private Answers.Receipt forged(String sled, Receipt r, long seed) {
        byte[] sig = sign(keyOf(sled), seeded("forged/" + seed), r.body());
        return new Answers.Receipt(sled, new String(r.body(), StandardCharsets.US_ASCII),
                Base64.getEncoder().encodeToString(sig));
    }

    private void expect(long seed, String mutation, Bundle b, Set<BigInteger> revoked, String says,
            Map<String, int[]> tried, List<String> missed, boolean print) {
        AuditCheck.Report r = check(b, revoked);
        int[] n = tried.computeIfAbsent(mutation, k -> new int[2]);
        n[0]++;
        if (r.problems().stream().anyMatch(p -> p.contains(says))) {
            n[1]++;
        } else {
            String m = "seed " + seed + " session " + b.sessionId() + ": " + mutation + " not caught (wanted \"" + says
                    + "\", found " + r.problems() + ")";
            missed.add(m);
            say(print, "MISSED " + m);
        }
    }

    public static void main(String[] args) throws Exception {
        long from = 1;
        long to = 200;
        int sleds = 8;
        Ordering ordering = Ordering.SIGNED;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seeds" -> to = from + Long.parseLong(args[++i]) - 1;
                case "--seed" -> {
                    from = Long.parseLong(args[++i]);
                    to = from;
                }
                case "--sleds" -> sleds = Integer.parseInt(args[++i]);
                case "--ordering" -> ordering = Ordering.valueOf(args[++i].toUpperCase(Locale.ROOT));
                default -> {
                    System.err.println("audit: --seeds N, --seed S, --sleds K, --ordering signed|causal");
                    System.exit(2);
                }
            }
        }
        Path dir = Files.createTempDirectory("sush-sim-audit");
        long t0 = System.nanoTime();
        Figures f = new SimAudit(dir).run(from, to, sleds, ordering, true);
        double minutes = (System.nanoTime() - t0) / 60e9;
        System.out.printf(Locale.ROOT, "%s: %d seeds of %d sleds (%.1f min): %d bundles audited, %d receipts %s, "
                + "%d false alarms, %d seeds with simulator violations%n", ordering.wireName(), f.seeds(), sleds,
                minutes, f.bundles(), f.receipts(), f.kinds(), f.falseAlarms().size(), f.simViolations());
        f.mutations().forEach((k, n) -> System.out.printf(Locale.ROOT, "  mutation %-18s caught %d of %d%n", k, n[1],
                n[0]));
        System.exit(f.ok() ? 0 : 1);
    }
}
