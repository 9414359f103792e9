package sush.gossip.set;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Version;

/**
 * {@link Replica#missingFor} starts its scan after a prefix of the log it remembers as covered
 * by an earlier frontier (D-037). Whatever frontiers it is asked about, in whatever order (a peer
 * that restarted asks with a smaller one), its answer is the full scan's.
 */
class MissingForTest {
    @Test
    void theAnswerIsTheFullScansForFrontiersAskedInAnyOrder() {
        for (int seed = 0; seed < 40; seed++) {
            Random rnd = new Random(seed);
            Replica a = Replica.seed(NetworkId.random(Entropy.seeded(seed)));
            List<Replica> rack = new ArrayList<>(List.of(a));
            for (int i = 0; i < 3; i++) {
                Replica n = Replica.newcomer();
                n.adopt(rack.get(rnd.nextInt(rack.size())).grant());
                rack.add(n);
            }
            List<Version> asked = new ArrayList<>(List.of(Version.ZERO));
            for (int step = 0; step < 400; step++) {
                Replica from = rack.get(rnd.nextInt(rack.size()));
                Replica to = rack.get(rnd.nextInt(rack.size()));
                switch (rnd.nextInt(3)) {
                    case 0 -> from.send(new byte[] {(byte) step});
                    case 1 -> {
                        Replica.View view = from.view();
                        Version theirs = to.frontier();
                        List<Message> missing = from.missingFor(view, theirs);
                        assertEquals(fullScan(from, view, theirs), versions(missing), "seed " + seed + " step " + step);
                        to.commit(view.network(), view.frontier(), missing);
                        asked.add(theirs);
                    }
                    default -> {
                        // A frontier seen before, maybe far behind: a peer that lost its set.
                        Version old = asked.get(rnd.nextInt(asked.size()));
                        Replica.View view = from.view();
                        assertEquals(fullScan(from, view, old), versions(from.missingFor(view, old)),
                                "seed " + seed + " step " + step + " (an older frontier)");
                    }
                }
            }
        }
    }

    @Test
    void aViewTakenBeforeLaterSendsIsAnsweredWithinIt() {
        Replica a = Replica.seed(NetworkId.random(Entropy.seeded(99)));
        for (int i = 0; i < 10; i++) {
            a.send(new byte[] {(byte) i});
        }
        Replica.View early = a.view();
        Version mid = a.frontier();
        for (int i = 0; i < 10; i++) {
            a.send(new byte[] {(byte) i});
        }
        // Remembers the whole log (20) as covered by the newest frontier...
        assertEquals(0, a.missingFor(a.view(), a.frontier()).size());
        // ...and still answers a view of 10 within its 10, for a frontier below the newest.
        assertEquals(List.of(), versions(a.missingFor(early, mid)));
        assertEquals(fullScan(a, a.view(), mid), versions(a.missingFor(a.view(), mid)));
        assertEquals(10, a.missingFor(a.view(), mid).size());
    }

    private static List<Version> fullScan(Replica r, Replica.View view, Version frontier) {
        List<Version> out = new ArrayList<>();
        for (Delivery d : r.readFrom(0, (int) view.logSize())) {
            if (!d.version().leq(frontier)) {
                out.add(d.version());
            }
        }
        return out;
    }

    private static List<Version> versions(List<Message> messages) {
        return messages.stream().map(Message::version).toList();
    }
}
