package sush.projections.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Signers;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.JobRequest;
import sush.projections.fold.SledProjection;
import sush.projections.job.SignedJob;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Sled;

/**
 * Fold throughput: a realistic stream (32 sleds announcing, sessions, signed jobs on chosen
 * targets, every targeted sled reporting started and stopped) folded through one sled's
 * projections, decoding included. Run: {@code ./bench.sh fold [--quick]}.
 */
public final class FoldBench {
    private static final int SLEDS = 32;
    private static final int JOBS_PER_SESSION = 500;
    /** Messages per window of the ingress/fold pipeline (about 450 signed jobs). */
    private static final int WINDOW = 8_192;

    private FoldBench() {
    }

    public static void main(String[] args) {
        boolean quick = java.util.Arrays.asList(args).contains("--quick");
        int messages = quick ? 200_000 : 1_000_000;
        long buildStart = System.nanoTime();
        List<Version> versions = new ArrayList<>(messages);
        List<byte[]> payloads = new ArrayList<>(messages);
        build(messages, versions, payloads);
        double buildS = (System.nanoTime() - buildStart) / 1e9;
        Sled me = new Sled("913-0000019:SLED00", 0);
        // The jobs of the stream by window, as the sled's ingress stage sees them.
        int windows = (messages + WINDOW - 1) / WINDOW;
        List<List<SignedJob>> jobsByWindow = new ArrayList<>();
        for (int w = 0; w < windows; w++) {
            jobsByWindow.add(new ArrayList<>());
        }
        List<SignedJob> jobs = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            Message m = decode(payloads.get(i));
            if (m instanceof Message.JobStart) {
                jobs.add(((Message.JobStart) m).job());
                jobsByWindow.get(i / WINDOW).add(((Message.JobStart) m).job());
            }
        }
        // Warm up (a prefix, verifying inline on a throwaway store), then measure on fresh state.
        SledProjection warm = new SledProjection(me, Signers.trust(Signers.KEY));
        for (int i = 0; i < Math.min(messages, 100_000); i++) {
            warm.apply(versions.get(i), payloads.get(i));
        }
        if (java.util.Arrays.asList(args).contains("--parts")) {
            // For profiling: only the parts below, ten times over.
            for (int i = 0; i < 10; i++) {
                parts(me, jobs, versions, payloads, messages);
            }
            return;
        }
        // 1. Window by window, as a sled's pipeline runs: the ingress stage checks the window's
        //    signatures on every core, then the fold thread folds the window (decoding included)
        //    with those verdicts known. A sled overlaps the two; here they alternate so each is
        //    timed alone. Three runs on fresh state; the median fold time counts.
        int cores = Runtime.getRuntime().availableProcessors();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double[] runs = new double[3];
        double verifySeconds = 0;
        // The ingress stage's workers: plain threads that park when idle (a fork-join pool's
        // workers spin a while after each window, on the cores the fold then runs on).
        java.util.concurrent.ExecutorService workers = java.util.concurrent.Executors.newFixedThreadPool(cores);
        long allocated = 0;
        SledProjection fold = null;
        double[] cpuRuns = new double[runs.length];
        for (int run = 0; run < runs.length; run++) {
            TrustStore ahead = Signers.trust(Signers.KEY);
            fold = new SledProjection(me, ahead);
            double foldS = 0;
            double foldCpuS = 0;
            double checkS = 0;
            long allocs = 0;
            for (int w = 0; w < windows; w++) {
                long t0 = System.nanoTime();
                long bad = checkAhead(workers, cores, jobsByWindow.get(w), ahead);
                checkS += (System.nanoTime() - t0) / 1e9;
                if (bad != 0) {
                    throw new IllegalStateException(bad + " bad signatures");
                }
                long allocBefore = threads.getCurrentThreadAllocatedBytes();
                long c1 = threads.getCurrentThreadCpuTime();
                long t1 = System.nanoTime();
                for (int i = w * WINDOW; i < Math.min(messages, (w + 1) * WINDOW); i++) {
                    fold.apply(versions.get(i), payloads.get(i));
                }
                foldS += (System.nanoTime() - t1) / 1e9;
                foldCpuS += (threads.getCurrentThreadCpuTime() - c1) / 1e9;
                allocs += threads.getCurrentThreadAllocatedBytes() - allocBefore;
            }
            runs[run] = foldS;
            cpuRuns[run] = foldCpuS;
            verifySeconds = checkS;
            allocated = allocs;
        }
        workers.shutdown();
        double[] sorted = runs.clone();
        java.util.Arrays.sort(sorted);
        double seconds = sorted[1];
        double[] cpuSorted = cpuRuns.clone();
        java.util.Arrays.sort(cpuSorted);
        double cpuSeconds = cpuSorted[1];
        // 2. The same fold checking every signature itself, on one core: what one core alone does.
        SledProjection inline = new SledProjection(me, Signers.trust(Signers.KEY));
        long inlineStart = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            inline.apply(versions.get(i), payloads.get(i));
        }
        double inlineSeconds = (System.nanoTime() - inlineStart) / 1e9;
        if (!inline.digest().equals(fold.digest())) {
            throw new IllegalStateException("checking ahead changed the state:\n" + inline.digest() + "\n" + fold.digest());
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("msgs_per_s", messages / seconds);
        figures.put("msgs_per_cpu_s", messages / cpuSeconds);
        figures.put("alloc_mb_per_s", allocated / seconds / (1024 * 1024));
        figures.put("jobs", (double) jobs.size());
        figures.put("verify_jobs_per_s", jobs.size() / verifySeconds);
        figures.put("verify_cores", (double) cores);
        figures.put("msgs_per_s_verifying_inline", messages / inlineSeconds);
        System.out.printf(Locale.ROOT, "fold: %,d messages (%d sleds, %d jobs per session, %,d signed jobs), stream built in %.1f s%n",
                messages, SLEDS, JOBS_PER_SESSION, jobs.size(), buildS);
        System.out.printf(Locale.ROOT, "ingress: %,d signatures checked ahead, window by window, on %d cores in %.2f s: %,.0f jobs/s (%.0f us of one core each)%n",
                jobs.size(), cores, verifySeconds, jobs.size() / verifySeconds, verifySeconds * cores * 1e6 / jobs.size());
        System.out.printf(Locale.ROOT, "fold, one thread, decoding included: runs of %.2f, %.2f, %.2f s; median %,.0f msgs/s, %.0f bytes allocated per message, %.0f MB/s%n",
                runs[0], runs[1], runs[2], messages / seconds, allocated / (double) messages, figures.get("alloc_mb_per_s"));
        System.out.printf(Locale.ROOT, "the fold thread's own CPU time: runs of %.2f, %.2f, %.2f s; median %,.0f msgs per CPU-second"
                + " (wall time also holds collector pauses and time this machine gave to others)%n",
                cpuRuns[0], cpuRuns[1], cpuRuns[2], messages / cpuSeconds);
        System.out.printf(Locale.ROOT, "fold checking every signature inline on one core: %.2f s, %,.0f msgs/s (same state)%n",
                inlineSeconds, messages / inlineSeconds);
        parts(me, jobs, versions, payloads, messages);
        System.out.println("state: " + fold.digest());
        StringBuilder json = new StringBuilder("{\"bench\":\"fold\"");
        figures.forEach((k, v) -> json.append(",\"").append(k).append("\":").append(String.format(Locale.ROOT, "%.1f", v)));
        System.out.println(json.append('}'));
    }

    /** Where the fold's time goes: each part alone over a prefix (best of three). */
    private static void parts(Sled me, List<SignedJob> jobs, List<Version> versions, List<byte[]> payloads, int messages) {
        int prefix = Math.min(messages, Integer.getInteger("bench.prefix", 100_000));
        TrustStore known = Signers.trust(Signers.KEY);
        jobs.stream().limit(TrustStore.VERDICTS_PER_GENERATION).forEach(known::signatureValid);
        double decodeS = best(() -> {
            int kinds = 0;
            for (int i = 0; i < prefix; i++) {
                kinds += decode(payloads.get(i)).getClass().getSimpleName().length();
            }
            if (kinds == 0) {
                throw new IllegalStateException();
            }
        });
        double joinS = best(() -> {
            Version f = Version.ZERO;
            for (int i = 0; i < prefix; i++) {
                f = f.join(versions.get(i));
            }
            if (f.isZero()) {
                throw new IllegalStateException();
            }
        });
        List<Message> decoded = new ArrayList<>(prefix);
        for (int i = 0; i < prefix; i++) {
            decoded.add(decode(payloads.get(i)));
        }
        double decodedS = best(() -> {
            SledProjection p = new SledProjection(me, known);
            for (int i = 0; i < prefix; i++) {
                p.apply(versions.get(i), decoded.get(i));
            }
        });
        System.out.printf(Locale.ROOT, "parts alone over %,d messages, ns per message: decode %.0f, frontier join %.0f, fold of decoded messages %.0f (join included)%n",
                prefix, decodeS * 1e9 / prefix, joinS * 1e9 / prefix, decodedS * 1e9 / prefix);
    }

    /** Checks {@code jobs} on {@code cores} workers; the number of bad signatures. */
    private static long checkAhead(java.util.concurrent.ExecutorService workers, int cores, List<SignedJob> jobs,
            TrustStore trust) {
        List<java.util.concurrent.Callable<Long>> parts = new ArrayList<>();
        for (int c = 0; c < cores; c++) {
            int from = jobs.size() * c / cores;
            int to = jobs.size() * (c + 1) / cores;
            parts.add(() -> jobs.subList(from, to).stream().filter(j -> !trust.signatureValid(j)).count());
        }
        long bad = 0;
        try {
            for (java.util.concurrent.Future<Long> f : workers.invokeAll(parts)) {
                bad += f.get();
            }
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
        return bad;
    }

    private static Message decode(byte[] payload) {
        try {
            return MessageCodec.decode(payload);
        } catch (sush.projections.message.MessageException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double best(Runnable r) {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            r.run();
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
        }
        return best;
    }

    private static void build(int messages, List<Version> versions, List<byte[]> payloads) {
        Random random = new Random(42);
        List<Id> ids = Id.ONE.fork(SLEDS);
        Version frontier = Version.ZERO;
        String[] boards = new String[SLEDS];
        for (int s = 0; s < SLEDS; s++) {
            boards[s] = String.format("913-0000019:SLED%02d", s);
        }
        int sessionNumber = 0;
        SessionId session = null;
        JobId at = null;
        int jobsInSession = JOBS_PER_SESSION;
        List<Message> pending = new ArrayList<>();
        int sled = 0;
        while (versions.size() < messages) {
            if (pending.isEmpty()) {
                if (versions.isEmpty()) {
                    for (int s = 0; s < SLEDS; s++) {
                        pending.add(new Message.Announcement(boards[s], "0.1.0", s));
                    }
                } else if (jobsInSession >= JOBS_PER_SESSION) {
                    byte[] nonce = new byte[SessionIds.NONCE_BYTES];
                    random.nextBytes(nonce);
                    byte[] client = {(byte) sessionNumber++};
                    session = SessionIds.compute(boards[0], nonce, client);
                    at = sush.projections.id.Chain.first(session);
                    jobsInSession = 0;
                    pending.add(new Message.SessionStart(session, boards[0], nonce, client, "operator"));
                } else {
                    String target = random.nextInt(4) == 0 ? "*" : Integer.toString(random.nextInt(SLEDS));
                    JobRequest r = new JobRequest(session, at, "uptime", target, false);
                    pending.add(new Message.JobStart(Signers.KEY.sign(r)));
                    int reporters = target.equals("*") ? SLEDS : 1;
                    for (int k = 0; k < reporters; k++) {
                        String board = target.equals("*") ? boards[k] : boards[Integer.parseInt(target)];
                        pending.add(new Message.JobStarted(board, at));
                        pending.add(new Message.JobStopped(board, at, 0, null, 10, new byte[32], 0, new byte[32]));
                    }
                    at = r.successor();
                    jobsInSession++;
                }
            }
            Message m = pending.remove(0);
            sled = (sled + 1 + random.nextInt(3)) % SLEDS;
            frontier = frontier.tick(ids.get(sled));
            versions.add(frontier);
            payloads.add(MessageCodec.encode(m));
        }
    }
}
