package sush.ops.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sush.gossip.net.GossipTls;
import sush.gossip.net.RackCa;
import sush.ops.wire.Answers;
import sush.ops.wire.SignedRequests;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.Chain;
import sush.projections.id.Hashes;
import sush.projections.id.Id88;
import sush.projections.id.SessionId;
import sush.projections.job.Receipt;
import sush.projections.job.SignedJob;

/**
 * Issue 40 (D-060): {@code sush audit verify}'s check on a bundle it must pass, and on every kind of
 * mutation it must catch, each named: an altered byte, a missing commit, a job committed twice,
 * sequences out of the chain's order, a request of an untrusted signer, a revoked sled, a receipt
 * of another session, an output that is not the one the receipt hashed.
 */
class AuditCheckTest {
    private static final String A = "913-0000019:SLEDA";
    private static final String B = "913-0000019:SLEDB";
    private static final SessionId SESSION = new SessionId(filled(7));
    private static final String LIFE = "5e1f";

    @TempDir
    Path dir;
    private X509Certificate ca;
    private String rack;
    private final Map<String, X509Certificate> certs = new HashMap<>();
    private final Map<String, PrivateKey> keys = new HashMap<>();
    private SignedJob first;
    private SignedJob second;

    private static byte[] filled(int v) {
        byte[] b = new byte[Id88.BYTES];
        java.util.Arrays.fill(b, (byte) v);
        return b;
    }

    @BeforeEach
    void rack() throws Exception {
        RackCa c = RackCa.create(dir, "audit-rack", new SecureRandom());
        ca = c.certificate();
        rack = AuditCheck.commonName(ca.getSubjectX500Principal().getName());
        for (String sled : List.of(A, B)) {
            Path home = Files.createDirectories(dir.resolve(sled.replace(':', '_')));
            c.issue(sled, home);
            certs.put(sled, GossipTls.readCertificate(home.resolve(RackCa.SLED_CERT)));
            keys.put(sled, GossipTls.readKey(home.resolve(RackCa.SLED_KEY)));
        }
        first = Jobs.at(Signers.KEY, SESSION, Chain.first(SESSION), "uptime", "*", false);
        second = Jobs.at(Signers.KEY, SESSION, first.request().successor(), "false", "*", false);
    }

    private Answers.Receipt signed(String sled, Receipt r) throws Exception {
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(keys.get(sled));
        s.update(r.body());
        return new Answers.Receipt(sled, new String(r.body(), StandardCharsets.US_ASCII),
                Base64.getEncoder().encodeToString(s.sign()));
    }

    private Receipt end(String sled, SignedJob j, int exit, byte[] out) {
        return new Receipt(Receipt.Kind.END, rack, sled, SESSION, j.request().job(), null, null, null, "stopped", exit, null,
                (long) out.length, Hashes.sha3Raw(out), 0L, Hashes.sha3Raw(new byte[0]));
    }

    private Receipt commit(String sled, SignedJob j, long seq) {
        return Receipt.commit(rack, sled, SESSION, j.request().job(), j.request().successor(), LIFE, seq);
    }

    /** A's run of both jobs (the second fails) and B's refusal of the first and run of the second. */
    private List<Answers.Receipt> receipts() throws Exception {
        List<Answers.Receipt> r = new ArrayList<>();
        r.add(signed(A, commit(A, first, 5)));
        r.add(signed(A, end(A, first, 0, "up\n".getBytes(StandardCharsets.UTF_8))));
        r.add(signed(A, commit(A, second, 7)));
        r.add(signed(A, end(A, second, 1, new byte[0])));
        r.add(signed(B, new Receipt(Receipt.Kind.REFUSE, rack, B, SESSION, first.request().job(), null, null, null,
                "skipped", null, "budget-spent", null, null, null, null)));
        r.add(signed(B, commit(B, second, 3)));
        r.add(signed(B, end(B, second, 0, new byte[0])));
        return r;
    }

    private Bundle bundle(List<Answers.Receipt> receipts, SignedJob... requests) throws Exception {
        List<Map<String, Object>> rs = new ArrayList<>();
        for (SignedJob j : requests.length == 0 ? new SignedJob[] {first, second} : requests) {
            rs.add(SignedRequests.toJson(j));
        }
        Map<String, String> pems = new HashMap<>();
        for (String sled : List.of(A, B)) {
            pems.put(sled, Files.readString(dir.resolve(sled.replace(':', '_')).resolve(RackCa.SLED_CERT)));
        }
        return new Bundle(Bundle.FORMAT, SESSION.codephrase(), null, rs, List.of(), receipts, pems);
    }

    private AuditCheck.Report check(Bundle b) throws Exception {
        return check(b, Set.of(), Optional.empty());
    }

    private AuditCheck.Report check(Bundle b, Set<BigInteger> revoked, Optional<Path> outputs) throws Exception {
        return new AuditCheck(ca, Signers.TRUST, revoked, outputs).check(b);
    }

    private void caught(String what, AuditCheck.Report r, String says) {
        assertTrue(!r.ok() && r.problems().stream().anyMatch(p -> p.contains(says)), what + ": " + r.problems());
    }

    @Test
    void aTrueBundlePassesWithARowPerJobAndSled() throws Exception {
        AuditCheck.Report r = check(bundle(receipts()));
        assertTrue(r.ok(), r.problems().toString());
        assertEquals(4, r.rows().size(), r.rows().toString());
        assertEquals("seq 5", r.rows().get(0).commit());
        assertEquals("stopped exit 1", r.rows().get(2).ending());
    }

    @Test
    void everyMutationIsCaughtAndNamed() throws Exception {
        List<Answers.Receipt> ok = receipts();
        // One byte of one receipt's body flipped.
        caught("altered", check(bundle(edit(ok, 3, x -> new Answers.Receipt(x.sled(), x.body().replace("exit_code=1",
                "exit_code=0"), x.signature())))), "the signature does not match (altered)");
        // A's commit of the first job missing.
        List<Answers.Receipt> missing = new ArrayList<>(ok);
        missing.remove(0);
        caught("missing commit", check(bundle(missing)), "without a commit receipt");
        // A commit whose ending has not come (yet): open, not a fault.
        List<Answers.Receipt> running = new ArrayList<>(ok);
        running.remove(1);
        AuditCheck.Report r = check(bundle(running));
        assertTrue(r.ok() && r.open().size() == 1 && r.open().get(0).contains("no ending receipt yet"), r.toString());
        // A second commit of the first job on A (validly signed: at most once broken).
        List<Answers.Receipt> twice = new ArrayList<>(ok);
        twice.add(signed(A, commit(A, first, 9)));
        caught("twice", check(bundle(twice)), "committed twice");
        // A's second commit before its first in record sequence.
        caught("reordered", check(bundle(edit(ok, 2, x -> signedQuietly(A, commit(A, second, 4))))), "not after");
        // A request signed by a key nobody trusts.
        SignedJob forged = Jobs.at(Signers.STRANGER, SESSION, Chain.first(SESSION), "uptime", "*", false);
        caught("untrusted", check(bundle(ok, forged, second)), "unknown");
        // A revoked sled: its receipts are not taken.
        caught("revoked", check(bundle(ok), Set.of(certs.get(B).getSerialNumber()), Optional.empty()), "revoked");
        // A receipt of another session.
        Receipt elsewhere = Receipt.commit(rack, B, new SessionId(filled(8)), first.request().job(),
                first.request().successor(), LIFE, 1);
        List<Answers.Receipt> other = new ArrayList<>(ok);
        other.add(signed(B, elsewhere));
        caught("other session", check(bundle(other)), "of session");
        // An output that is not the one hashed.
        Path out = Files.createDirectories(dir.resolve("out").resolve(first.request().job().codephrase()).resolve(A));
        Files.writeString(out.resolve("stdout"), "down\n");
        caught("output", check(bundle(ok), Set.of(), Optional.of(dir.resolve("out"))), "SHA3-256");
        Files.writeString(out.resolve("stdout"), "up\n");
        assertTrue(check(bundle(ok), Set.of(), Optional.of(dir.resolve("out"))).ok(), "the true output matches");
    }

    /**
     * What a real rack's bundle holds and the check must pass (found by the receipts' audit of
     * simulated racks): sequences that start again in a sled's next life, a commit receipt held
     * twice, an interruption said from the record with no commit receipt (open, not a fault), and a
     * chain with two branches (a burn sent for a position a request took).
     */
    @Test
    void livesReToldCommitsInterruptionsAndBranchesAreNoFault() throws Exception {
        List<Answers.Receipt> ok = receipts();
        // A restarted: its second commit is record 1 of a new life.
        List<Answers.Receipt> lives = edit(ok, 2, x -> signedQuietly(A, Receipt.commit(rack, A, SESSION,
                second.request().job(), second.request().successor(), "be11", 1)));
        assertTrue(check(bundle(lives)).ok(), check(bundle(lives)).problems().toString());
        // The same commit receipt twice (signed again, or held by two sleds): one record, one commit.
        List<Answers.Receipt> again = new ArrayList<>(ok);
        again.add(signed(A, commit(A, first, 5)));
        assertTrue(check(bundle(again)).ok(), check(bundle(again)).problems().toString());
        // B interrupted with no commit receipt: a crash took the receipt, or a failed commit's record.
        List<Answers.Receipt> cut = new ArrayList<>(ok);
        cut.remove(6);
        cut.remove(5);
        cut.add(signed(B, new Receipt(Receipt.Kind.END, rack, B, SESSION, second.request().job(), null, null, null,
                "interrupted", null, "interrupted", null, null, null, null)));
        AuditCheck.Report r = check(bundle(cut));
        assertTrue(r.ok() && r.open().stream().anyMatch(o -> o.contains("not proven")), r.toString());
        // A burn of the first position, taken by a request already: the branch after the burn is
        // the chain too, and B followed it (its commit of the second job gone: it took the branch).
        SignedJob branch = Jobs.at(Signers.KEY, SESSION, Chain.afterBurn(Chain.first(SESSION)), "date", "*", false);
        List<Answers.Receipt> two = new ArrayList<>(ok.subList(0, 5));
        two.add(signed(B, commit(B, branch, 8)));
        Bundle b = bundle(two, first, second, branch);
        b = new Bundle(b.format(), b.sessionId(), b.grant(), b.requests(), List.of(Chain.first(SESSION).codephrase()),
                b.receipts(), b.certificates());
        r = check(b);
        assertTrue(r.ok(), r.problems().toString());
        // But one sled committing on both branches followed two: named.
        two.add(signed(A, commit(A, branch, 6)));
        b = new Bundle(b.format(), b.sessionId(), b.grant(), b.requests(), b.burns(), two, b.certificates());
        caught("two branches", check(b), "two branches");
    }

    private Answers.Receipt signedQuietly(String sled, Receipt r) {
        try {
            return signed(sled, r);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Answers.Receipt> edit(List<Answers.Receipt> rs, int at, UnaryOperator<Answers.Receipt> f) {
        List<Answers.Receipt> out = new ArrayList<>(rs);
        out.set(at, f.apply(out.get(at)));
        return out;
    }
}
