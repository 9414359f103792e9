package sush.projections.fold;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

import sush.projections.id.JobId;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * Every job's status per reporting sled, folded from job events. Pure and order-independent:
 * higher rank wins, equal ranks keep the smaller encoded message. Bounded: past
 * {@link #MAX_JOBS} the causally oldest job whose statuses are all terminal is forgotten; a
 * queued or running job never is.
 */
public final class StatusProjection {
    public static final int MAX_JOBS = 65_536;

    /** A status and the message that set it. */
    public record Entry(JobStatus status, Message message) {
    }

    private final int maxJobs;
    /** Insertion order is the causal order of first sight: eviction takes the oldest. */
    private final LinkedHashMap<JobId, Map<String, Entry>> jobs = new LinkedHashMap<>();
    /** Conflicts by position and reporter; a position is only here while its statuses are. */
    private final Map<JobId, Map<String, Message.JobConflict>> conflicts = new HashMap<>();
    /** Bound on the receipts kept of one job (a few per sled of a rack). */
    public static final int MAX_RECEIPTS_PER_JOB = 256;
    /** Receipts by job (D-060), in arrival order; a job is only here while its statuses are. */
    private final Map<JobId, LinkedHashSet<Message.JobReceipt>> receipts = new HashMap<>();
    /** Cubbies whose part of a job its starter skipped (D-059); a job is only here while its statuses are. */
    private final Map<JobId, SortedSet<Integer>> skippedSleds = new HashMap<>();
    private long untracked;

    public StatusProjection() {
        this(MAX_JOBS);
    }

    StatusProjection(int maxJobs) {
        this.maxJobs = maxJobs;
    }

    /** An independent copy with the same state (see {@link SledProjection#copy()}). */
    StatusProjection(StatusProjection o) {
        this.maxJobs = o.maxJobs;
        o.jobs.forEach((job, byReporter) -> this.jobs.put(job, new HashMap<>(byReporter)));
        o.conflicts.forEach((job, byReporter) -> this.conflicts.put(job, new HashMap<>(byReporter)));
        o.skippedSleds.forEach((job, cubbies) -> this.skippedSleds.put(job, new TreeSet<>(cubbies)));
        o.receipts.forEach((job, rs) -> this.receipts.put(job, new LinkedHashSet<>(rs)));
        this.untracked = o.untracked;
    }

    /**
     * Forgets every status and conflict of {@code job}: the rack settled it (every sled it
     * targets ended it and every sled passed it), and the sleds' journals answer for it (D-054).
     */
    public void forget(JobId job) {
        jobs.remove(job);
        conflicts.remove(job);
        skippedSleds.remove(job);
        receipts.remove(job);
    }

    /** Keeps {@code r}, a receipt about {@code job} (D-060), while the job is tracked; bounded per job. */
    public void receipt(JobId job, Message.JobReceipt r) {
        if (track(job) == null) {
            untracked++;
            return;
        }
        LinkedHashSet<Message.JobReceipt> kept = receipts.computeIfAbsent(job, k -> new LinkedHashSet<>());
        if (kept.size() < MAX_RECEIPTS_PER_JOB) {
            kept.add(r);
        } else {
            untracked++;
        }
    }

    /** The receipts kept of {@code job}, in arrival order. */
    public List<Message.JobReceipt> receipts(JobId job) {
        LinkedHashSet<Message.JobReceipt> r = receipts.get(job);
        return r == null ? List.of() : List.copyOf(r);
    }

    /**
     * The starter skipped the part of {@code job} of the sled in {@code cubby} (D-059; the fold
     * checked who sent it). Kept while the job is tracked, as its statuses are.
     */
    public void skipSled(JobId job, int cubby) {
        if (track(job) == null) {
            untracked++;
            return;
        }
        skippedSleds.computeIfAbsent(job, k -> new TreeSet<>()).add(cubby);
    }

    /** The cubbies whose part of {@code job} its starter skipped. */
    public SortedSet<Integer> skippedSleds(JobId job) {
        SortedSet<Integer> s = skippedSleds.get(job);
        return s == null ? Collections.emptySortedSet() : Collections.unmodifiableSortedSet(s);
    }

    /** Applies a job event; returns whether it changed the job's status on its reporter. */
    public boolean apply(Message event) {
        if (event instanceof Message.JobStarted) {
            Message.JobStarted e = (Message.JobStarted) event;
            return put(e.job(), e.baseboard(), new Entry(JobStatus.STARTED, event));
        } else if (event instanceof Message.JobStopped) {
            Message.JobStopped e = (Message.JobStopped) event;
            return put(e.job(), e.baseboard(), new Entry(JobStatus.STOPPED, event));
        } else if (event instanceof Message.JobErrored) {
            Message.JobErrored e = (Message.JobErrored) event;
            JobStatus s = e.kind() == Message.JobError.INTERRUPTED ? JobStatus.INTERRUPTED : JobStatus.ERROR;
            return put(e.job(), e.baseboard(), new Entry(s, event));
        } else if (event instanceof Message.JobSkipped) {
            Message.JobSkipped e = (Message.JobSkipped) event;
            return put(e.job(), e.baseboard(), new Entry(JobStatus.SKIPPED, event));
        } else if (event instanceof Message.JobCancelled) {
            Message.JobCancelled e = (Message.JobCancelled) event;
            return put(e.job(), e.baseboard(), new Entry(JobStatus.CANCELLED, event));
        } else if (event instanceof Message.JobConflict) {
            // Skipped{Conflict}: ranks as a skip (whatever ran at the position outranks it), and is
            // kept beside the statuses: a client tells by it that a status is another request's.
            Message.JobConflict e = (Message.JobConflict) event;
            boolean changed = put(e.job(), e.baseboard(), new Entry(JobStatus.SKIPPED, event));
            if (jobs.containsKey(e.job())) {
                Map<String, Message.JobConflict> byReporter = conflicts.computeIfAbsent(e.job(), k -> new HashMap<>());
                Message.JobConflict old = byReporter.get(e.baseboard());
                if (old == null || Arrays.compareUnsigned(MessageCodec.encode(e), MessageCodec.encode(old)) < 0) {
                    byReporter.put(e.baseboard(), e);
                }
            }
            return changed;
        }
        return false;
    }

    /**
     * Conflicts reported for {@code job}'s position, by reporter (ordered-sessions.md section 9):
     * each names the successor of the request the reporter holds there and of the one it refused.
     * Forgotten with the job's statuses.
     */
    public Map<String, Message.JobConflict> conflicts(JobId job) {
        Map<String, Message.JobConflict> c = conflicts.get(job);
        return c == null ? Map.of() : Collections.unmodifiableMap(c);
    }

    /** Statuses by reporting baseboard; empty if unknown or forgotten. */
    public Map<String, Entry> statuses(JobId job) {
        Map<String, Entry> s = jobs.get(job);
        return s == null ? Map.of() : Collections.unmodifiableMap(s);
    }

    public Optional<Entry> status(JobId job, String baseboard) {
        return Optional.ofNullable(statuses(job).get(baseboard));
    }

    /** Every job with a status, oldest first. */
    public List<JobId> jobs() {
        return List.copyOf(jobs.keySet());
    }

    public int size() {
        return jobs.size();
    }

    /** Events dropped because the history was full of unfinished jobs. */
    public long untracked() {
        return untracked;
    }

    private boolean put(JobId job, String baseboard, Entry entry) {
        Map<String, Entry> byReporter = track(job);
        if (byReporter == null) {
            untracked++;
            return false;
        }
        Entry old = byReporter.get(baseboard);
        if (old != null && !wins(entry, old)) {
            return false;
        }
        byReporter.put(baseboard, entry);
        return true;
    }

    private static boolean wins(Entry candidate, Entry current) {
        if (candidate.status() != current.status()) {
            return candidate.status().outranks(current.status());
        }
        return Arrays.compareUnsigned(MessageCodec.encode(candidate.message()), MessageCodec.encode(current.message())) < 0;
    }

    private Map<String, Entry> track(JobId job) {
        Map<String, Entry> existing = jobs.get(job);
        if (existing != null) {
            return existing;
        }
        if (jobs.size() >= maxJobs && !evictOne()) {
            return null;
        }
        Map<String, Entry> fresh = new HashMap<>();
        jobs.put(job, fresh);
        return fresh;
    }

    private boolean evictOne() {
        for (Iterator<Map.Entry<JobId, Map<String, Entry>>> it = jobs.entrySet().iterator(); it.hasNext();) {
            Map.Entry<JobId, Map<String, Entry>> job = it.next();
            Map<String, Entry> s = job.getValue();
            if (!s.isEmpty() && s.values().stream().allMatch(e -> e.status().isTerminal())) {
                conflicts.remove(job.getKey());
                skippedSleds.remove(job.getKey());
                receipts.remove(job.getKey());
                it.remove();
                return true;
            }
        }
        return false;
    }
}
