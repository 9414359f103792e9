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
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.fold.SledProjection;
import sush.projections.job.SignedJob;
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

    private static final sush.projections.job.SignerKey KEY = sush.projections.job.SignerKey.generate(
            SignatureAlgorithm.ED25519, new java.security.SecureRandom());
    private static final sush.projections.job.TrustStore TRUST = trust();

    private FoldBench() {
    }

    private static sush.projections.job.TrustStore trust() {
        try {
            return sush.projections.job.TrustStore.of(List.of(KEY.publicPem()));
        } catch (sush.projections.job.KeyException e) {
            throw new IllegalStateException(e);
        }
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
        // Warm up on a prefix, then fold the whole stream on a fresh projection.
        SledProjection warm = new SledProjection(me, TRUST);
        for (int i = 0; i < Math.min(messages, 100_000); i++) {
            warm.apply(versions.get(i), payloads.get(i));
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocBefore = threads.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        SledProjection fold = new SledProjection(me, TRUST);
        for (int i = 0; i < messages; i++) {
            fold.apply(versions.get(i), payloads.get(i));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long allocated = threads.getCurrentThreadAllocatedBytes() - allocBefore;
        // The signature check of every job, timed alone: what the fold spends on crypto.
        List<SignedJob> jobs = new ArrayList<>();
        for (byte[] payload : payloads) {
            try {
                Message m = MessageCodec.decode(payload);
                if (m instanceof Message.JobStart) {
                    jobs.add(((Message.JobStart) m).job());
                }
            } catch (sush.projections.message.MessageException e) {
                throw new IllegalStateException(e);
            }
        }
        long verifyStart = System.nanoTime();
        for (SignedJob j : jobs) {
            TRUST.check(j, j.request().session());
        }
        double verifySeconds = (System.nanoTime() - verifyStart) / 1e9;
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("msgs_per_s", messages / seconds);
        figures.put("alloc_mb_per_s", allocated / seconds / (1024 * 1024));
        figures.put("jobs", (double) jobs.size());
        figures.put("verify_us_per_job", verifySeconds * 1e6 / jobs.size());
        figures.put("msgs_per_s_without_verify", messages / Math.max(1e-9, seconds - verifySeconds));
        System.out.printf(Locale.ROOT, "fold: %d messages (%d sleds, %d jobs per session), stream built in %.1f s%n",
                messages, SLEDS, JOBS_PER_SESSION, buildS);
        System.out.printf(Locale.ROOT, "folded in %.2f s: %.0f msgs/s, %.0f bytes allocated per message, %.0f MB/s%n",
                seconds, messages / seconds, allocated / (double) messages, figures.get("alloc_mb_per_s"));
        System.out.printf(Locale.ROOT, "of which checking %d job signatures: %.2f s (%.0f us each); the rest folds at %.0f msgs/s%n",
                jobs.size(), verifySeconds, verifySeconds * 1e6 / jobs.size(), messages / Math.max(1e-9, seconds - verifySeconds));
        System.out.println("state: " + fold.digest());
        StringBuilder json = new StringBuilder("{\"bench\":\"fold\"");
        figures.forEach((k, v) -> json.append(",\"").append(k).append("\":").append(String.format(Locale.ROOT, "%.1f", v)));
        System.out.println(json.append('}'));
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
                    pending.add(new Message.JobStart(KEY.sign(r)));
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
