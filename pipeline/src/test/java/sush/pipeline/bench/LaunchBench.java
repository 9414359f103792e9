package sush.pipeline.bench;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.node.Entry;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.locker.store.DirectorySlot;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.store.Locker;
import sush.locker.store.Slot;
import sush.pipeline.Rack;
import sush.pipeline.exec.Limits;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.sled.Gossip;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fixtures.Signers;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * The launch path of one sled: from a job reaching the chain head (admission's verdict) to its
 * process running, with the two-slot boundary commit on this disk in it; next to the bare commit
 * (write, fsync, rename, fsync directory on two slots) measured in the same run. Jobs run
 * {@code true} one after another. Run: {@code ./bench.sh launch [--quick]}.
 */
public final class LaunchBench {
    private LaunchBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int jobs = quick ? 100 : 400;
        Path root = Files.createTempDirectory(Path.of("pipeline", "target"), "bench-launch-");
        Path a = Files.createDirectory(root.resolve("m2-a"));
        Path b = Files.createDirectory(root.resolve("m2-b"));
        List<Slot> slots = List.of(new DirectorySlot(a), new DirectorySlot(b));
        Locker.provision(RecordFormat.CAUSAL, slots, Entropy.secure(), BoundaryRecord.genesis(Rack.ME.baseboard()));
        Locker<BoundaryRecord> locker = Locker.open(RecordFormat.CAUSAL, Rack.ME.baseboard(), slots, Entropy.secure());
        NetworkId n = NetworkId.random(Entropy.secure());
        Replica rack = Replica.seed(n);
        Replica replica = Replica.newcomer();
        replica.adopt(rack.grant());
        Gossip gossip = new Gossip() {
            @Override
            public Flux<Entry> entries() {
                return Flux.just(new Entry(1, Entry.Cause.START, n, replica));
            }

            @Override
            public void send(byte[] payload) {
                replica.send(payload);
            }
        };
        Scheduler loop = Schedulers.newSingle("sled-loop");
        Scheduler writer = Schedulers.newSingle("sled-writer");
        ProcessLauncher launcher = new ProcessLauncher(root.resolve("output"));
        SledRuntime sled = new SledRuntime(new SledConfig(Rack.ME, Signers.TRUST, "bench", Limits.DEFAULT), gossip,
                locker, launcher, Optional.empty(), loop, writer);
        Map<JobId, Long> screened = new ConcurrentHashMap<>();
        Map<JobId, Long> launched = new ConcurrentHashMap<>();
        Map<JobId, CountDownLatch> ended = new ConcurrentHashMap<>();
        sled.events().subscribe(e -> {
            long now = System.nanoTime();
            if (e instanceof SledEvent.Screened) {
                screened.put(((SledEvent.Screened) e).job(), now);
            } else if (e instanceof SledEvent.Launched) {
                launched.put(((SledEvent.Launched) e).job(), now);
            } else if (e instanceof SledEvent.Ended) {
                ended.computeIfAbsent(((SledEvent.Ended) e).job(), k -> new CountDownLatch(1)).countDown();
            }
        });
        // Issue 40: receipts signed with a P-256 key, as a daemon's, in alternate blocks of jobs.
        java.security.KeyPairGenerator kg = java.security.KeyPairGenerator.getInstance("EC");
        kg.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
        java.security.PrivateKey receiptKey = kg.generateKeyPair().getPrivate();
        sush.pipeline.sled.ReceiptSigner signer = new sush.pipeline.sled.ReceiptSigner() {
            @Override
            public String rack() {
                return "bench";
            }

            @Override
            public byte[] sign(byte[] body) {
                try {
                    java.security.Signature s = java.security.Signature.getInstance("SHA256withECDSA");
                    s.initSign(receiptKey);
                    s.update(body);
                    return s.sign();
                } catch (java.security.GeneralSecurityException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        sled.start();
        rack.send(MessageCodec.encode(Rack.start(1)));
        List<SignedJob> all = Rack.jobs(Rack.session(1), jobs, "true", "*");
        long[] launch = new long[jobs];
        long[] cycle = new long[jobs];
        boolean[] signing = new boolean[jobs];
        long[] bare = new long[jobs];
        byte[] file = new byte[1200];
        for (int i = 0; i < jobs; i++) {
            JobId id = all.get(i).request().job();
            signing[i] = (i / 20) % 2 == 1;
            sled.signReceipts(signing[i] ? signer : null);
            rack.send(MessageCodec.encode(new Message.JobStart(all.get(i))));
            replica.commit(n, rack.frontier(), rack.missingFor(rack.view(), replica.frontier()));
            CountDownLatch done = ended.computeIfAbsent(id, k -> new CountDownLatch(1));
            if (!done.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("job " + i + " did not end");
            }
            launch[i] = launched.get(id) - screened.get(id);
            cycle[i] = System.nanoTime() - screened.get(id);
            long t0 = System.nanoTime();
            bareCommit(root.resolve("floor-a"), file);
            bareCommit(root.resolve("floor-b"), file);
            bare[i] = System.nanoTime() - t0;
            // Let the job's stop event reach the fold, so the next (sequential) job may start.
            Thread.sleep(2);
        }
        sled.halt();
        launcher.close();
        locker.close();
        loop.dispose();
        writer.dispose();
        int skip = jobs / 10;
        double[] with = p50s(launch, cycle, signing, skip, true);
        double[] without = p50s(launch, cycle, signing, skip, false);
        long t0 = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            signer.sign(new byte[300]);
        }
        double signUs = (System.nanoTime() - t0) / 1000 / 1e3;
        long[] l = Arrays.copyOfRange(launch, skip, jobs);
        long[] c = Arrays.copyOfRange(bare, skip, jobs);
        Arrays.sort(l);
        Arrays.sort(c);
        double l50 = l[l.length / 2] / 1e6;
        double l99 = l[(int) (l.length * 0.99)] / 1e6;
        double c50 = c[c.length / 2] / 1e6;
        System.out.printf(Locale.ROOT, "launch: %d jobs of `true` on one sled, boundary slots under %s%n", jobs, root);
        System.out.printf(Locale.ROOT, "%-26s %10s %10s%n", "", "p50 ms", "p99 ms");
        System.out.printf(Locale.ROOT, "%-26s %10.2f %10.2f%n", "head to process running", l50, l99);
        System.out.printf(Locale.ROOT, "%-26s %10.2f %10.2f%n", "bare two-slot commit", c50, c[(int) (c.length * 0.99)] / 1e6);
        System.out.printf(Locale.ROOT, "receipts (alternate blocks of 20 jobs): launch p50 %.3f ms with, %.3f without "
                + "(%.3fx); head to ended p50 %.3f with, %.3f without (%.3fx); one P-256 signature %.1f us%n", with[0],
                without[0], with[0] / without[0], with[1], without[1], with[1] / without[1], signUs);
        System.out.printf(Locale.ROOT, "{\"bench\":\"launch\",\"launch_p50_ms\":%.3f,\"launch_p99_ms\":%.3f,"
                + "\"commit_p50_ms\":%.3f,\"launch_p50_receipts_ms\":%.3f,\"launch_p50_no_receipts_ms\":%.3f,"
                + "\"cycle_p50_receipts_ms\":%.3f,\"cycle_p50_no_receipts_ms\":%.3f,\"receipt_sign_us\":%.1f}%n",
                l50, l99, c50, with[0], without[0], with[1], without[1], signUs);
        try (var walk = Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        System.exit(0);
    }

    /** The p50s (ms) of launch and of the whole cycle over the jobs after {@code skip} signed as {@code signed} says. */
    private static double[] p50s(long[] launch, long[] cycle, boolean[] signing, int skip, boolean signed) {
        List<Long> l = new java.util.ArrayList<>();
        List<Long> c = new java.util.ArrayList<>();
        for (int i = skip; i < launch.length; i++) {
            if (signing[i] == signed) {
                l.add(launch[i]);
                c.add(cycle[i]);
            }
        }
        java.util.Collections.sort(l);
        java.util.Collections.sort(c);
        return new double[] {l.get(l.size() / 2) / 1e6, c.get(c.size() / 2) / 1e6};
    }

    private static void bareCommit(Path dir, byte[] bytes) throws Exception {
        Files.createDirectories(dir);
        Path temp = dir.resolve("boundary.tmp");
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(temp, dir.resolve("boundary"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
