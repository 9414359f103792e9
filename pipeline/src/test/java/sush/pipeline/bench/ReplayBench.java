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

    private ReplayBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int records = quick ? 200_000 : 1_000_000;
        Path root = Files.createTempDirectory(Path.of("pipeline", "target"), "bench-journal-");
        byte[] key = new byte[32];
        new Random(1).nextBytes(key);
        long t0 = System.nanoTime();
        write(root.resolve("plain"), Optional.empty(), records);
        write(root.resolve("sealed"), Optional.of(key), records);
        double writeS = (System.nanoTime() - t0) / 1e9;
        // Warm up on the plain journal, then measure each once.
        Replay.run(root.resolve("plain"), Optional.empty(), Rack.ME, Rack.TRUST, Math.min(records, 100_000));
        double plain = time(root.resolve("plain"), Optional.empty(), records);
        double sealed = time(root.resolve("sealed"), Optional.of(key), records);
        System.out.printf(Locale.ROOT, "replay: %,d records (%d sleds), two journals written in %.1f s%n", records, SLEDS,
                writeS);
        System.out.printf(Locale.ROOT, "%-8s %14s%n", "", "records/s");
        System.out.printf(Locale.ROOT, "%-8s %,14.0f%n", "plain", records / plain);
        System.out.printf(Locale.ROOT, "%-8s %,14.0f%n", "sealed", records / sealed);
        System.out.printf(Locale.ROOT, "{\"bench\":\"replay\",\"msgs_per_s\":%.0f,\"sealed_msgs_per_s\":%.0f}%n",
                records / plain, records / sealed);
        try (var walk = Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static double time(Path dir, Optional<byte[]> key, int records) throws Exception {
        long t0 = System.nanoTime();
        Replay.Result r = Replay.run(dir, key, Rack.ME, Rack.TRUST, -1);
        double s = (System.nanoTime() - t0) / 1e9;
        if (r.records() != records + 1) {
            throw new IllegalStateException("replayed " + r.records() + " records");
        }
        return s;
    }

    private static void write(Path dir, Optional<byte[]> key, int records) {
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
                    j.append(new JournalRecord.Delivered(frontier, MessageCodec.encode(m)));
                    written++;
                }
            }
        }
    }
}
