package sush.gossip.net;

import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import sush.gossip.link.Link;
import sush.gossip.link.MemoryLink;

/**
 * An in-memory network of named sleds whose reachability tests control: cut or heal any pair,
 * and every link across a cut breaks at once. Deterministic with a virtual-time scheduler.
 */
public final class MemoryNetwork {
    private final Duration delay;
    private final Scheduler scheduler;
    private final Map<String, Consumer<Link>> listening = new ConcurrentHashMap<>();
    private final Set<Set<String>> cuts = ConcurrentHashMap.newKeySet();
    private final List<Wire> wires = new ArrayList<>();

    /** Links hand bytes over at once. */
    public MemoryNetwork() {
        this(Duration.ZERO, null);
    }

    /** Every chunk arrives {@code delay} after it was sent, on {@code scheduler}. */
    public MemoryNetwork(Duration delay, Scheduler scheduler) {
        this.delay = delay;
        this.scheduler = scheduler;
    }

    /** The transport of the sled at {@code address}. */
    public Transport transport(String address) {
        return new Endpoint(address);
    }

    /** Makes {@code a} and {@code b} unreachable from each other; their links break. */
    public void cut(String a, String b) {
        cuts.add(Set.of(a, b));
        for (Wire w : snapshot()) {
            if (w.joins(a, b)) {
                w.ends[0].poison("network cut");
            }
        }
    }

    /** Lets {@code a} and {@code b} reach each other again. */
    public void heal(String a, String b) {
        cuts.remove(Set.of(a, b));
    }

    /** Cuts every pair that is not inside one group. */
    public void partition(List<Set<String>> groups) {
        Set<String> all = new HashSet<>();
        groups.forEach(all::addAll);
        for (String a : all) {
            for (String b : all) {
                if (a.compareTo(b) < 0 && groups.stream().noneMatch(g -> g.contains(a) && g.contains(b))) {
                    cut(a, b);
                }
            }
        }
    }

    /** Removes every cut. */
    public void healAll() {
        cuts.clear();
    }

    public boolean reachable(String a, String b) {
        return !cuts.contains(Set.of(a, b));
    }

    private synchronized List<Wire> snapshot() {
        wires.removeIf(w -> !w.ends[0].isOpen());
        return new ArrayList<>(wires);
    }

    private synchronized void register(Wire w) {
        wires.add(w);
    }

    /** One open link between two addresses. */
    private record Wire(String from, String to, MemoryLink[] ends) {
        boolean joins(String a, String b) {
            return (from.equals(a) && to.equals(b)) || (from.equals(b) && to.equals(a));
        }

        boolean touches(String a) {
            return from.equals(a) || to.equals(a);
        }
    }

    private final class Endpoint implements Transport {
        private final String address;

        Endpoint(String address) {
            this.address = address;
        }

        @Override
        public Mono<Void> listen(Consumer<Link> acceptor) {
            return Mono.fromRunnable(() -> listening.put(address, acceptor));
        }

        @Override
        public Mono<Link> dial(String to) {
            return Mono.defer(() -> {
                Consumer<Link> acceptor = listening.get(to);
                if (acceptor == null || !reachable(address, to) || !listening.containsKey(address)) {
                    return Mono.error(new ConnectException(address + " cannot reach " + to));
                }
                MemoryLink[] ends = delay.isZero() ? MemoryLink.pair() : MemoryLink.pair(delay, scheduler);
                register(new Wire(address, to, ends));
                acceptor.accept(ends[1]);
                return Mono.just((Link) ends[0]);
            });
        }

        @Override
        public String localAddress() {
            return address;
        }

        @Override
        public void close() {
            listening.remove(address);
            for (Wire w : snapshot()) {
                if (w.touches(address)) {
                    w.ends[0].poison("sled stopped");
                }
            }
        }
    }
}
