package sush.ops.bench;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import sush.ops.cli.Client;

/**
 * Follows a sled's event stream on a thread of its own, as {@code sush job start --wait} does,
 * and tells when a job was reported stopped by a number of sleds: {@link #of} completes with
 * {@code System.nanoTime()} at the event that made the count.
 */
final class StoppedWatch {
    private final int sleds;
    private final Map<String, CompletableFuture<Long>> done = new ConcurrentHashMap<>();
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();
    /** Statuses that say a sled will not run a job here (skipped, error, cancelled): refusals. */
    private final AtomicLong refusals = new AtomicLong();

    private StoppedWatch(int sleds) {
        this.sleds = sleds;
    }

    /** Starts following {@code watcher}'s events; stops with the JVM (a daemon thread). */
    static StoppedWatch follow(Client watcher, int sleds, String name) {
        StoppedWatch w = new StoppedWatch(sleds);
        Thread t = new Thread(() -> {
            try {
                watcher.follow(ev -> {
                    String id = ev.path("job_id").asString("");
                    String status = ev.path("status").asString("");
                    if (status.equals("skipped") || status.equals("error") || status.equals("cancelled")) {
                        w.refusals.incrementAndGet();
                    }
                    if ("stopped".equals(ev.path("status").asString()) && w.counts.merge(id, 1, Integer::sum) == sleds) {
                        w.of(id).complete(System.nanoTime());
                    }
                    return false;
                });
            } catch (Client.Failure f) {
                System.err.println(name + ": lost the event stream: " + f.getMessage());
            }
        }, name + "-events");
        t.setDaemon(true);
        t.start();
        return w;
    }

    /** When {@code job} was reported stopped by every one of the sleds counted. */
    CompletableFuture<Long> of(String job) {
        return done.computeIfAbsent(job, k -> new CompletableFuture<>());
    }

    /** Statuses seen that refused a job (skipped, error, cancelled). */
    long refusals() {
        return refusals.get();
    }

    /** Forgets {@code job} (a long run keeps only what it still waits for). */
    void forget(String job) {
        done.remove(job);
        counts.remove(job);
    }
}
