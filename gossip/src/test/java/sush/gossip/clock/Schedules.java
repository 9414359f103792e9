package sush.gossip.clock;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Test fixture: random fork/event/join/receive schedules, every stamp they produce kept. */
final class Schedules {
    private Schedules() {
    }

    static List<Stamp> run(long seed, int steps, int maxParties) {
        Random random = new Random(seed);
        List<Stamp> parties = new ArrayList<>(List.of(Stamp.seed()));
        List<Stamp> seen = new ArrayList<>(parties);
        int nextEvent = 0;
        for (int step = 0; step < steps; step++) {
            int op = random.nextInt(10);
            int p = random.nextInt(parties.size());
            Stamp s = parties.get(p);
            if (op < 2 && parties.size() < maxParties) {
                Stamp[] halves = s.fork();
                parties.set(p, halves[0]);
                parties.add(halves[1]);
                seen.add(halves[0]);
                seen.add(halves[1]);
            } else if (op < 3 && parties.size() > 1) {
                int q = otherThan(random, parties.size(), p);
                Stamp joined = s.join(parties.get(q));
                parties.set(p, joined);
                parties.remove(q);
                seen.add(joined);
            } else if (op < 6 && parties.size() > 1) {
                Stamp got = s.receive(parties.get(otherThan(random, parties.size(), p)));
                parties.set(p, got);
                seen.add(got);
            } else {
                Stamp ticked = s.tick(nextEvent++);
                parties.set(p, ticked);
                seen.add(ticked);
            }
        }
        return seen;
    }

    private static int otherThan(Random random, int size, int p) {
        int q = random.nextInt(size - 1);
        return q >= p ? q + 1 : q;
    }
}
