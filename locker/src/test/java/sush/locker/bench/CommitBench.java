package sush.locker.bench;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.locker.Fixtures;
import sush.locker.record.RecordFormat;
import sush.locker.admission.Commit;
import sush.locker.record.BoundaryCodec;
import sush.locker.record.BoundaryRecord;
import sush.locker.store.DirectorySlot;
import sush.locker.store.Locker;
import sush.locker.store.Slot;
import sush.locker.store.SlotFile;
import sush.projections.id.SessionId;

/**
 * Commit latency: a full boundary store (build the record, check it, encode, frame, write both
 * slot directories with fsync, rename and directory fsync), one slot after the other and both at
 * once (D-029), next to the floor, the bare sequence (write, fsync, rename, fsync directory)
 * twice with no locker logic, measured in rotation in one run on this disk. Run: {@code ./bench.sh commit [--quick]}.
 */
public final class CommitBench {
    private CommitBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int rounds = quick ? 300 : 2000;
        Path root = Files.createTempDirectory(Path.of("locker", "target"), "bench-slots-");
        Path a = Files.createDirectory(root.resolve("m2-a"));
        Path b = Files.createDirectory(root.resolve("m2-b"));
        Path fa = Files.createDirectory(root.resolve("floor-a"));
        Path fb = Files.createDirectory(root.resolve("floor-b"));
        List<Slot> slots = List.of(new DirectorySlot(a), new DirectorySlot(b));
        List<Slot> pslots = List.of(new DirectorySlot(Files.createDirectory(root.resolve("par-a"))),
                new DirectorySlot(Files.createDirectory(root.resolve("par-b"))));
        BoundaryRecord full = Fixtures.full();
        Locker.provision(RecordFormat.CAUSAL, slots, Entropy.secure(), BoundaryRecord.genesis(Fixtures.ME));
        Locker.provision(RecordFormat.CAUSAL, pslots, Entropy.secure(), BoundaryRecord.genesis(Fixtures.ME));
        java.util.concurrent.ExecutorService writers = java.util.concurrent.Executors.newFixedThreadPool(2);
        long[] commit = new long[rounds];
        long[] parallel = new long[rounds];
        long[] floor = new long[rounds];
        int recordBytes = BoundaryCodec.encode(full).length;
        byte[] file = new SlotFile(new byte[SlotFile.NONCE_BYTES], 1, BoundaryCodec.encode(full)).encode();
        // The locker's own work first, on in-memory slots: it also warms the code up, as a
        // benchmark harness would, so the disk rounds below compare steady states.
        long[] cpu = cpuOnly(full, 20_000);
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, slots, Entropy.secure());
                Locker<BoundaryRecord> p = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, pslots, Entropy.secure())
                        .writeInParallel(writers)) {
            l.store(l.reserve(n -> full));
            p.store(p.reserve(n -> full));
            SessionId s = Fixtures.session("bench");
            Version vS = full.executed();
            for (int i = 0; i < rounds + rounds / 10; i++) {
                Commit.Input in = new Commit.Input(Fixtures.ME, full.network(), s, vS, Fixtures.job(s, 0),
                        Fixtures.job(s, 1), false);
                // Rotate which goes first, so none profits from the others' flushes.
                long[] ns = new long[3];
                for (int k = 0; k < 3; k++) {
                    int which = (i + k) % 3;
                    long t0 = System.nanoTime();
                    if (which == 0) {
                        l.store(l.reserve(n -> Commit.build(n, in)));
                    } else if (which == 1) {
                        p.store(p.reserve(n -> Commit.build(n, in)));
                    } else {
                        bare(fa, file);
                        bare(fb, file);
                    }
                    ns[which] = System.nanoTime() - t0;
                }
                if (i >= rounds / 10) {
                    commit[i - rounds / 10] = ns[0];
                    parallel[i - rounds / 10] = ns[1];
                    floor[i - rounds / 10] = ns[2];
                }
            }
        } finally {
            writers.shutdownNow();
        }
        Arrays.sort(cpu);
        Arrays.sort(commit);
        Arrays.sort(floor);
        Arrays.sort(parallel);
        double p50 = parallel[rounds / 2] / 1e3;
        double p99 = parallel[(int) (rounds * 0.99)] / 1e3;
        double c50 = commit[rounds / 2] / 1e3;
        double c99 = commit[(int) (rounds * 0.99)] / 1e3;
        double f50 = floor[rounds / 2] / 1e3;
        double f99 = floor[(int) (rounds * 0.99)] / 1e3;
        System.out.printf(Locale.ROOT, "commit: %d stores of a %d-byte record (16 recent universes, %d Bloom bits set) "
                + "to two slot directories under %s%n", rounds, recordBytes, full.burned().fill(), root);
        System.out.printf(Locale.ROOT, "%-8s %12s %12s%n", "", "p50 us", "p99 us");
        System.out.printf(Locale.ROOT, "%-8s %12.1f %12.1f   (one slot after the other)%n", "commit", c50, c99);
        System.out.printf(Locale.ROOT, "%-8s %12.1f %12.1f   (both slots at once, D-029: the daemon's)%n", "parallel",
                p50, p99);
        System.out.printf(Locale.ROOT, "%-8s %12.1f %12.1f   (bare write, fsync, rename, fsync, twice in turn)%n",
                "floor", f50, f99);
        System.out.printf(Locale.ROOT, "%-8s %12.1f %12.1f   (the same store to in-memory slots: no I/O)%n", "cpu",
                cpu[cpu.length / 2] / 1e3, cpu[(int) (cpu.length * 0.99)] / 1e3);
        System.out.printf(Locale.ROOT, "ratio p50 %.3f (sequential over the floor, target 1.3 or less), parallel %.3f "
                + "(both slots here share one disk: separate M.2s would halve it), record %d bytes (target under "
                + "16384)%n", c50 / f50, p50 / f50, recordBytes);
        System.out.printf(Locale.ROOT, "{\"bench\":\"commit\",\"commit_p50_us\":%.1f,\"commit_p99_us\":%.1f,"
                + "\"parallel_p50_us\":%.1f,\"parallel_p99_us\":%.1f,\"floor_p50_us\":%.1f,\"ratio_p50\":%.3f,"
                + "\"parallel_ratio_p50\":%.3f,\"record_bytes\":%d}%n", c50, c99, p50, p99, f50, c50 / f50,
                p50 / f50, recordBytes);
        List<Path> all = new ArrayList<>();
        try (var walk = Files.walk(root)) {
            walk.forEach(all::add);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Files.deleteIfExists(all.get(i));
        }
    }

    /** The locker's own work, the store to two in-memory slots: what a commit adds to the floor. */
    private static long[] cpuOnly(BoundaryRecord full, int rounds) throws Exception {
        List<Slot> mem = List.of(new sush.locker.store.MemorySlot("a"), new sush.locker.store.MemorySlot("b"));
        long[] out = new long[rounds];
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Fixtures.ME, mem, Entropy.secure())) {
            l.store(l.reserve(n -> full));
            SessionId s = Fixtures.session("bench");
            for (int i = 0; i < rounds * 2; i++) {
                Commit.Input in = new Commit.Input(Fixtures.ME, full.network(), s, full.executed(), Fixtures.job(s, 0),
                        Fixtures.job(s, 1), false);
                long t0 = System.nanoTime();
                l.store(l.reserve(n -> Commit.build(n, in)));
                out[i % rounds] = System.nanoTime() - t0;
            }
        }
        return out;
    }

    /** The floor: one slot's write, fsync, rename and directory fsync, nothing else. */
    private static void bare(Path dir, byte[] bytes) throws Exception {
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
