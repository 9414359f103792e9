package sush.gossip.set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Version;

/**
 * A replica forgetting messages (bounded-gossip.md section 3, issue 39): locally, without moving
 * its frontier; every other message keeps its checkpoint; nothing forgotten is sent to a peer,
 * handed to a newcomer, delivered, or taken back from a peer or a relayed push.
 */
class ForgetTest {
    private static final NetworkId U = NetworkId.random(Entropy.seeded(5));

    private static List<Version> sendAll(Replica r, int n) {
        List<Version> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(r.send(new byte[] {(byte) i}));
        }
        return out;
    }

    private static List<Long> checkpoints(Replica r) {
        return r.readFrom(0, Integer.MAX_VALUE).stream().map(Delivery::checkpoint).collect(Collectors.toList());
    }

    @Test
    void forgettingIsLocalAndKeepsEveryOtherCheckpoint() {
        Replica r = Replica.seed(U);
        List<Version> v = sendAll(r, 5);
        Version frontier = r.frontier();
        assertTrue(r.forgottenCeiling().isZero());
        assertEquals(2, r.forget(List.of(v.get(1), v.get(3), v.get(4).tick(r.identity()))),
                "held ones are forgotten; one never held is passed over");
        assertEquals(frontier, r.frontier(), "the frontier does not move");
        assertEquals(3, r.size());
        assertEquals(2, r.forgottenCount());
        assertFalse(r.contains(v.get(1)));
        assertTrue(r.get(v.get(1)).isEmpty());
        assertEquals(4, r.get(v.get(4)).orElseThrow().payload()[0], "a held message by its version");
        assertEquals(v.get(3), r.forgottenCeiling(), "the ceiling is the join of what was forgotten");
        assertEquals(List.of(1L, 3L, 5L), checkpoints(r), "the others keep their checkpoints");
        assertEquals(List.of(3L, 5L), r.readFrom(1, 10).stream().map(Delivery::checkpoint).toList());
        assertEquals(List.of(3L, 5L), r.readFrom(2, 10).stream().map(Delivery::checkpoint).toList(),
                "a checkpoint on a gap resumes after it");
        assertEquals(List.of(5L), r.readFrom(3, 1).stream().map(Delivery::checkpoint).toList());
        assertEquals(0, r.forget(List.of(v.get(1))), "forgetting twice changes nothing");
        r.send(new byte[] {9});
        assertEquals(List.of(1L, 3L, 5L, 6L), checkpoints(r));
    }

    @Test
    void aSubscriberPassesOverGapsAndIsNeverHandedAForgottenMessage() {
        Replica r = Replica.seed(U);
        List<Version> v = sendAll(r, 300);
        r.forget(v.subList(0, 299));
        List<Delivery> got = new ArrayList<>();
        r.deliveries(0).subscribe(got::add);
        assertEquals(1, got.size(), "only the held one");
        assertEquals(300L, got.get(0).checkpoint());
        r.send(new byte[] {1});
        assertEquals(List.of(300L, 301L), got.stream().map(Delivery::checkpoint).toList());
    }

    @Test
    void gapsAreSqueezedOutAndReadsStayRight() {
        Replica r = Replica.seed(U);
        List<Version> v = sendAll(r, 1000);
        List<Version> odd = new ArrayList<>();
        List<Version> even = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            (i % 2 == 0 ? even : odd).add(v.get(i));
        }
        r.forget(odd);
        r.forget(even.subList(0, 400)); // gaps now outnumber what is held: squeezed
        assertEquals(100, r.size());
        List<Long> cps = checkpoints(r);
        assertEquals(100, cps.size());
        assertEquals(801L, cps.get(0), "the 401st even message, first held, keeps its checkpoint");
        assertEquals(999L, cps.get(99));
        assertEquals(List.of(803L), r.readFrom(801, 1).stream().map(Delivery::checkpoint).toList());
        assertEquals(List.of(801L), r.readFrom(700, 1).stream().map(Delivery::checkpoint).toList());
        assertEquals(99, r.forget(even.subList(400, 499)));
        assertEquals(List.of(999L), checkpoints(r));
    }

    @Test
    void aPeerIsNeverSuppliedWhatWasForgottenAndTheCeilingTravelsWithTheSupply() {
        Replica a = Replica.seed(U);
        List<Version> v = sendAll(a, 4);
        a.forget(List.of(v.get(0), v.get(2)));
        Replica.Supply s = a.supplyFor(a.view(), Version.ZERO);
        assertEquals(List.of(v.get(1), v.get(3)), s.messages().stream().map(Message::version).toList());
        assertEquals(v.get(2), s.forgotten());
        assertEquals(s.messages(), a.missingFor(a.view(), Version.ZERO));
        // What is remembered as covered is still right after more is forgotten.
        assertEquals(List.of(v.get(3)), a.missingFor(a.view(), v.get(2)).stream().map(Message::version).toList());
        a.forget(List.of(v.get(3)));
        assertEquals(List.of(), a.missingFor(a.view(), v.get(2)));
    }

    @Test
    void aCommitNeverTakesBackWhatWasForgottenAndLearnsThePeersCeiling() {
        Replica a = Replica.seed(U);
        List<Version> v = sendAll(a, 3);
        List<Message> all = a.missingFor(a.view(), Version.ZERO);
        Replica b = Replica.newcomer();
        b.adopt(a.grant());
        b.forget(List.of(v.get(0)));
        // A relayed push or a stale batch carrying the forgotten message: passed over.
        assertEquals(0, b.commit(U, v.get(2), all));
        assertFalse(b.contains(v.get(0)));
        assertEquals(2, b.size());
        Replica c = Replica.newcomer();
        c.adopt(a.grant());
        assertEquals(0, c.commit(U, v.get(2), v.get(1), List.of()));
        assertEquals(v.get(1), c.forgottenCeiling(), "a peer's ceiling is learned at commit");
        assertEquals(3, c.size(), "and nothing held is dropped for it");
        // A replica that forgot nothing takes what it lacks as before.
        Replica d = Replica.seed(U);
        assertEquals(3, d.commit(U, v.get(2), all));
    }

    @Test
    void aNewcomerAdoptsAForgetfulSetWithItsCeiling() {
        Replica a = Replica.seed(U);
        List<Version> v = sendAll(a, 3);
        a.forget(List.of(v.get(1)));
        Replica.Grant g = a.grant();
        assertEquals(List.of(v.get(0), v.get(2)), g.messages().stream().map(Message::version).toList());
        assertEquals(v.get(1), g.forgotten());
        assertEquals(v.get(2), g.frontier());
        Replica n = Replica.newcomer();
        n.adopt(g);
        assertEquals(v.get(2), n.frontier());
        assertEquals(v.get(1), n.forgottenCeiling());
        assertEquals(2, n.size());
        assertEquals(0, n.forgottenCount(), "it forgot nothing itself");
        assertEquals(ReplicaException.Kind.NOT_A_NEWCOMER,
                assertThrows(ReplicaException.class, () -> n.adopt(a.grant())).kind());
        // A grant without a ceiling (a provider that forgot nothing) is the old four fields.
        assertTrue(new Replica.Grant(U, g.identity(), g.frontier(), g.messages()).forgotten().isZero());
    }

    @Test
    void aLogFilledToItsCapacityIsReadAndSqueezedWhole() {
        // 16 and 128 messages fill the log's arrays exactly (they grow by doubling from 16).
        Replica r = Replica.seed(U);
        List<Version> v = sendAll(r, 16);
        assertEquals(16, r.grant().messages().size(), "every held message, none past the last");
        v.addAll(sendAll(r, 112));
        assertEquals(65, r.forget(v.subList(0, 65)), "gaps now outnumber what is held: squeezed");
        assertEquals(63, r.size());
        assertEquals(66L, r.readFrom(0, 1).get(0).checkpoint());
        assertEquals(128L, r.readFrom(127, 1).get(0).checkpoint());
        assertEquals(63, r.grant().messages().size());
    }
}
