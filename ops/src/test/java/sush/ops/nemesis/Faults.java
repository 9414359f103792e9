package sush.ops.nemesis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import sush.ops.daemon.SlotFaults;

/**
 * The nemesis proper (issue 38): the faults, chosen and timed by the run's seed, each with its
 * undoing. Every kind fires once early in a shuffled order (a short run still sees them all),
 * then kinds are drawn at random; at most two faults are active at once. Network faults compose:
 * the drops, congestion, loss and links down of every active fault are applied together each time
 * one starts or ends.
 */
final class Faults {
    /** The kinds of fault, as the fault table names them. */
    enum Kind {
        ISOLATE, HALVES, RING, ONE_WAY, LINK_DOWN, CONGEST, LOSS, CRASH, POWER_CUT, PAUSE, SLOW_SLOT, SLOT_EIO,
        DISK_FULL, CLOCK_SHIFT, COLD_BOOT
    }

    /** One active fault: its kind, what it touches, when it ends (ms since the run began) and what it said. */
    private record Active(Kind kind, Set<List<Integer>> drops, Map<Integer, Integer> congest, Map<Integer, Integer> loss,
            Set<Integer> linksDown, int sled, long endsAt, String what) {
    }

    private final Random random;
    private final Netns net;
    private final Sleds sleds;
    private final Workload operator;
    private final List<Kind> firstRound;
    private final List<Active> active = new ArrayList<>();
    private final Map<Kind, Integer> fired = new EnumMap<>(Kind.class);
    private final List<String> schedule = Collections.synchronizedList(new ArrayList<>());
    private final long scale;

    /** {@code scaleMs}: the longest a fault lasts (pauses up to 30 s in long runs, less in short ones). */
    Faults(Random random, Netns net, Sleds sleds, Workload operator, long scaleMs) {
        this.random = random;
        this.net = net;
        this.sleds = sleds;
        this.operator = operator;
        this.scale = scaleMs;
        List<Kind> all = new ArrayList<>(List.of(Kind.values()));
        Collections.shuffle(all, random);
        this.firstRound = all;
    }

    Map<Kind, Integer> fired() {
        return fired;
    }

    List<String> schedule() {
        return schedule;
    }

    private void say(long now, String line) {
        schedule.add(String.format("%7.1f s  %s", now / 1000.0, line));
    }

    /** Ends the faults that are due, then starts one if fewer than two are active; {@code now} in ms since the start. */
    void tick(long now) throws IOException, InterruptedException {
        boolean changed = false;
        for (Active a : new ArrayList<>(active)) {
            if (a.endsAt() <= now) {
                end(a, now);
                changed = true;
            }
        }
        // The first round starts a fault at every tick; later ones at two ticks in three.
        if (active.size() < 2 && (!firstRound.isEmpty() || random.nextInt(3) > 0)) {
            Kind k = firstRound.isEmpty() ? Kind.values()[random.nextInt(Kind.values().length)] : firstRound.get(0);
            // A cold boot alone: the whole rack is what it hits.
            boolean coldBootNow = active.stream().anyMatch(a -> a.kind() == Kind.COLD_BOOT);
            if (!coldBootNow && (k != Kind.COLD_BOOT || active.isEmpty())) {
                if (!firstRound.isEmpty()) {
                    firstRound.remove(0);
                }
                begin(k, now);
                changed = true;
            }
        }
        if (changed) {
            applyNetwork();
        }
    }

    /** Ends every active fault and heals the network. */
    void healAll(long now) throws IOException, InterruptedException {
        for (Active a : new ArrayList<>(active)) {
            end(a, now);
        }
        net.heal();
        for (int i = 0; i < sleds.size(); i++) {
            if (sleds.isPaused(i)) {
                sleds.resume(i);
            }
            if (sleds.isDown(i)) {
                sleds.start(i);
                operator.forget(i);
            }
        }
        say(now, "healed everything");
    }

    /** Sled {@code s} restarted by its operator after its drives were fixed (its store loaded untrusted). */
    void serviced(long now, int s) throws IOException, InterruptedException {
        sleds.stop(s);
        sleds.start(s);
        operator.forget(s);
        say(now, "sled " + s + " serviced: its boundary slots loaded untrusted (EIO at its start), restarted");
    }

    private long duration() {
        return Math.max(1_000, (long) (random.nextDouble() * scale));
    }

    private int sled() {
        return random.nextInt(sleds.size());
    }

    private int free() {
        // A sled no other fault holds, when there is one.
        Set<Integer> held = new HashSet<>();
        active.forEach(a -> held.add(a.sled()));
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < sleds.size(); i++) {
            if (!held.contains(i)) {
                free.add(i);
            }
        }
        return free.isEmpty() ? sled() : free.get(random.nextInt(free.size()));
    }

    private void begin(Kind k, long now) throws IOException, InterruptedException {
        int n = sleds.size();
        int s = free();
        long end = now + duration();
        Set<List<Integer>> drops = new HashSet<>();
        Map<Integer, Integer> congest = new HashMap<>();
        Map<Integer, Integer> loss = new HashMap<>();
        Set<Integer> down = new HashSet<>();
        String what;
        switch (k) {
            case ISOLATE -> {
                for (int j = 0; j < n; j++) {
                    if (j != s) {
                        drops.add(List.of(s, j));
                        drops.add(List.of(j, s));
                    }
                }
                what = "sled " + s + " isolated from the other sleds";
            }
            case HALVES -> {
                List<Integer> order = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    order.add(j);
                }
                Collections.shuffle(order, random);
                Set<Integer> left = new HashSet<>(order.subList(0, n / 2));
                for (int a = 0; a < n; a++) {
                    for (int b = 0; b < n; b++) {
                        if (left.contains(a) != left.contains(b)) {
                            drops.add(List.of(a, b));
                        }
                    }
                }
                what = "halves " + left + " | the rest";
            }
            case RING -> {
                // Each sled sees its ring neighbours only (three sleds: the two ends lose each other).
                for (int a = 0; a < n; a++) {
                    for (int b = 0; b < n; b++) {
                        int d = Math.abs(a - b);
                        if (a != b && (n <= 4 ? d == n - 1 : Math.min(d, n - d) > 1)) {
                            drops.add(List.of(a, b));
                        }
                    }
                }
                what = "a ring: each sled reaches its neighbours only";
            }
            case ONE_WAY -> {
                int t = (s + 1 + random.nextInt(n - 1)) % n;
                drops.add(List.of(s, t));
                what = "one way: sled " + s + " cannot reach sled " + t + " (the reverse works)";
            }
            case LINK_DOWN -> {
                down.add(s);
                what = "sled " + s + "'s link down (the client loses it too)";
            }
            case CONGEST -> {
                congest.put(s, 64);
                what = "sled " + s + " sends at 64 kbit/s";
            }
            case LOSS -> {
                loss.put(s, 10 + random.nextInt(30));
                what = "sled " + s + " loses " + loss.get(s) + "% of what it sends";
            }
            case CRASH -> {
                sleds.kill(s, false);
                what = "sled " + s + "'s daemon killed -9 (its jobs live on)";
            }
            case POWER_CUT -> {
                sleds.kill(s, true);
                what = "sled " + s + " power cut (daemon and jobs killed -9)";
            }
            case PAUSE -> {
                end = now + Math.min(30_000, Math.max(1_000, duration()));
                sleds.pause(s);
                what = "sled " + s + "'s daemon paused (SIGSTOP)";
            }
            case SLOW_SLOT -> {
                int ms = 200 + random.nextInt(1800);
                sleds.control(s, SlotFaults.DELAY, Integer.toString(ms));
                what = "sled " + s + "'s slot writes take " + ms + " ms longer";
            }
            case SLOT_EIO -> {
                String which = random.nextInt(3) == 0 ? "all" : Integer.toString(random.nextInt(2));
                sleds.control(s, SlotFaults.EIO, which);
                what = "sled " + s + "'s slot " + which + " fails with EIO";
            }
            case DISK_FULL -> {
                sleds.fill(s, 1 << 20);
                what = "sled " + s + "'s output disk full (1 MiB left)";
            }
            case CLOCK_SHIFT -> {
                // Back at most 2 h: the monotonic clock moves with it and must stay above zero.
                int hours = random.nextBoolean() ? 1 + random.nextInt(48) : -1 - random.nextInt(2);
                sleds.stop(s);
                sleds.start(s, hours * 3600L);
                operator.forget(s);
                what = "sled " + s + " restarted with its wall clock " + hours + " h off";
            }
            default -> {
                for (int j = 0; j < n; j++) {
                    sleds.kill(j, random.nextBoolean());
                }
                end = now + 2_000 + random.nextInt(3_000);
                what = "whole-rack cold boot: every sled down";
            }
        }
        fired.merge(k, 1, Integer::sum);
        active.add(new Active(k, drops, congest, loss, down, s, end, what));
        say(now, "begin " + k + ": " + what);
    }

    private void end(Active a, long now) throws IOException, InterruptedException {
        active.remove(a);
        int s = a.sled();
        switch (a.kind()) {
            case CRASH, POWER_CUT -> {
                sleds.start(s);
                operator.forget(s);
            }
            case PAUSE -> sleds.resume(s);
            case SLOW_SLOT -> sleds.clearControl(s, SlotFaults.DELAY);
            case SLOT_EIO -> sleds.clearControl(s, SlotFaults.EIO);
            case DISK_FULL -> sleds.unfill(s);
            case CLOCK_SHIFT -> {
                sleds.stop(s);
                sleds.start(s);
                operator.forget(s);
            }
            case COLD_BOOT -> {
                for (int j = 0; j < sleds.size(); j++) {
                    sleds.start(j);
                    operator.forget(j);
                }
            }
            default -> {
                // A network fault: applyNetwork undoes it.
            }
        }
        say(now, "end " + a.kind() + ": " + a.what());
    }

    /** The drops, congestion, loss and links down of every active fault, applied afresh. */
    private void applyNetwork() throws IOException {
        net.heal();
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (Active a : active) {
            for (List<Integer> d : a.drops()) {
                if (seen.put(d.get(0) + ">" + d.get(1), true) == null) {
                    net.drop(d.get(0), d.get(1));
                }
            }
            for (Map.Entry<Integer, Integer> c : a.congest().entrySet()) {
                net.congest(c.getKey(), c.getValue());
            }
            for (Map.Entry<Integer, Integer> l : a.loss().entrySet()) {
                net.lose(l.getKey(), l.getValue());
            }
            for (int d : a.linksDown()) {
                net.linkDown(d);
            }
        }
    }
}
