package sush.pipeline.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.pipeline.Rack;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.pipeline.journal.Replay;
import sush.projections.fixtures.Signers;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * Replay throughput: a journal of 1,000,000 delivered messages of a 32-sled rack (sessions, signed
 * jobs, every targeted sled's started and stopped) folded back through the projections, plain
 * and sealed. Run: {@code ./bench.sh replay [--quick]}.
 */
public final class ReplayBench {
    private static final int SLEDS = 32;
    /** Unmeasured replays after the cold one: the JIT recompiles the read path a few times. */
    private static final int WARM_UP_RUNS = Integer.getInteger("bench.warmups", 4);

    private ReplayBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int records = quick ? 200_000 : 1_000_000;
        Path root = Files.createTempDirectory(Path.of("pipeline", "target"), "bench-journal-");
        byte[] key = new byte[32];
        new Random(1).nextBytes(key);
        long t0 = System.nanoTime();
        write(root.resolve("plain"), Optional.empty(), records, true);
        write(root.resolve("sealed"), Optional.of(key), records, true);
        write(root.resolve("unchecked"), Optional.empty(), records, false);
        double writeS = (System.nanoTime() - t0) / 1e9;
        // Each journal: a first (cold) replay, one more to let the JIT settle, then three
        // measured runs whose median counts.
        Runs plain = runs(root.resolve("plain"), Optional.empty(), records);
        Runs sealed = runs(root.resolve("sealed"), Optional.of(key), records);
        Runs unchecked = runs(root.resolve("unchecked"), Optional.empty(), records);
        System.out.printf(Locale.ROOT, "replay: %,d records (%d sleds, sessions of 100 jobs on every sled), three journals written in %.1f s%n",
                records, SLEDS, writeS);
        System.out.printf(Locale.ROOT, "%-44s %14s %s%n", "", "records/s", "(measured runs, s; cold first run, s)");
        row("plain, verdicts recorded (as a sled writes)", records, plain);
        row("sealed (AES-256-GCM), verdicts recorded", records, sealed);
        row("plain, no verdicts: signatures re-checked", records, unchecked);
        System.out.printf(Locale.ROOT, "a plain journal replays on one thread: %,.0f records per CPU-second of it (median; wall"
                + " time also holds collector pauses and time this machine gave to others)%n", records / plain.cpu[1]);
        System.out.printf(Locale.ROOT, "{\"bench\":\"replay\",\"msgs_per_s\":%.0f,\"msgs_per_cpu_s\":%.0f,\"sealed_msgs_per_s\":%.0f,"
                + "\"rechecking_msgs_per_s\":%.0f}%n", records / plain.wall[1], records / plain.cpu[1], records / sealed.wall[1],
                records / unchecked.wall[1]);
        try (var walk = Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Measured wall and replaying-thread CPU times (each sorted: the middle is the median), and the cold run. */
    private record Runs(double[] wall, double[] cpu, double cold) {
    }

    private static void row(String what, int records, Runs r) {
        System.out.printf(Locale.ROOT, "%-44s %,14.0f (%.2f, %.2f, %.2f; cold %.2f)%n", what, records / r.wall[1], r.wall[0],
                r.wall[1], r.wall[2], r.cold);
    }

    /** Three measured replays of {@code dir} after the cold one and the unmeasured ones. */
    private static Runs runs(Path dir, Optional<byte[]> key, int records) throws Exception {
        double cold = time(dir, key, records)[0];
        for (int i = 0; i < WARM_UP_RUNS; i++) {
            time(dir, key, records);
        }
        double[] wall = new double[3];
        double[] cpu = new double[3];
        for (int i = 0; i < 3; i++) {
            double[] t = time(dir, key, records);
            wall[i] = t[0];
            cpu[i] = t[1];
        }
        Arrays.sort(wall);
        Arrays.sort(cpu);
        return new Runs(wall, cpu, cold);
    }

    /** One replay: wall seconds, and CPU seconds of the replaying thread. */
    private static double[] time(Path dir, Optional<byte[]> key, int records) throws Exception {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long c0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        // A fresh trust store each time: no verdict is remembered from an earlier run.
        Replay.Summary r = Replay.stream(dir, key, Rack.ME, Signers.trust(Signers.KEY), -1, step -> { });
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (threads.getCurrentThreadCpuTime() - c0) / 1e9;
        if (r.records() != records + 1) {
            throw new IllegalStateException("replayed " + r.records() + " records");
        }
        return new double[] {s, cpu};
    }

    /** A journal as a sled writes it; {@code verdicts} false: as written before verdicts were kept. */
    private static void write(Path dir, Optional<byte[]> key, int records, boolean verdicts) {
        Random random = new Random(42);
        List<Id> ids = Id.ONE.fork(SLEDS);
        Version frontier = Version.ZERO;
        try (Journal j = Journal.open(dir, key, Entropy.seeded(3))) {
            j.append(new JournalRecord.Entered(1, NetworkId.of(new byte[16]), "START"));
            int written = 0;
            int session = 0;
            while (written < records) {
                session++;
                SessionId s = Rack.session(session);
                List<Message> batch = new java.util.ArrayList<>();
                batch.add(Rack.start(session));
                for (SignedJob job : Rack.jobs(s, 100, "uptime", "*")) {
                    batch.add(new Message.JobStart(job));
                    JobId id = job.request().job();
                    for (int k = 0; k < SLEDS; k++) {
                        String board = String.format("913-0000019:SLED%02d", k);
                        batch.add(new Message.JobStarted(board, id));
                        batch.add(new Message.JobStopped(board, id, 0, null, 10, new byte[32], 0, new byte[32]));
                    }
                }
                for (Message m : batch) {
                    if (written == records) {
                        break;
                    }
                    frontier = frontier.tick(ids.get(random.nextInt(SLEDS)));
                    JournalRecord.Signature verdict = verdicts && m instanceof Message.JobStart
                            ? JournalRecord.Signature.GOOD : JournalRecord.Signature.UNCHECKED;
                    j.append(new JournalRecord.Delivered(frontier, MessageCodec.encode(m), verdict));
                    written++;
                }
            }
        }
    }
}
