package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

class TargetsTest {
    @Test
    void holdsEachHashOnceInAscendingOrder() {
        Targets t = Targets.of(5, -3, 5, 9, -3);
        assertEquals(3, t.size());
        List<Integer> seen = new ArrayList<>();
        t.forEach(seen::add);
        assertEquals(List.of(-3, 5, 9), seen);
        assertTrue(t.contains(-3));
        assertTrue(t.contains(9));
        assertFalse(t.contains(6));
        assertEquals(Targets.of(9, 5, -3), t);
        assertEquals(Targets.of(9, 5, -3).hashCode(), t.hashCode());
        assertNotEquals(Targets.of(9, 5), t);
        assertEquals(0, Targets.of().size());
    }

    @Test
    void addingIsASetUnionAndLeavesTheOriginalAlone() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            TreeSet<Integer> model = new TreeSet<>();
            int[] first = random.ints(random.nextInt(20), -8, 8).toArray();
            for (int h : first) {
                model.add(h);
            }
            Targets t = Targets.of(first);
            int[] more = random.ints(random.nextInt(20) + 2, -8, 8).toArray();
            int count = random.nextInt(more.length);
            Targets u = t.with(more, count);
            TreeSet<Integer> union = new TreeSet<>(model);
            for (int i = 0; i < count; i++) {
                union.add(more[i]);
            }
            List<Integer> got = new ArrayList<>();
            u.forEach(got::add);
            assertEquals(new ArrayList<>(union), got);
            List<Integer> before = new ArrayList<>();
            t.forEach(before::add);
            assertEquals(new ArrayList<>(model), before, "the original set is unchanged");
            for (int h = -9; h <= 9; h++) {
                assertEquals(union.contains(h), u.contains(h));
            }
        }
    }
}
