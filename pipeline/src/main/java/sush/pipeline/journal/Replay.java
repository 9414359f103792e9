package sush.pipeline.journal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

import sush.projections.fold.Ordering;
import sush.projections.fold.SledProjection;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.Signatures;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;
import sush.projections.targets.Sled;

/**
 * Folds a journal back through the projections, as the live sled did: each entry starts a fresh
 * fold, deliveries are applied in journal order, resumptions and passed heads are fed back, and
 * a job request's signature gets the verdict the sled recorded for it (the given keys decide
 * only where the journal holds none). Yields the timeline and the state after any step.
 *
 * <p>The fold runs on the caller's thread in journal order; a sealed journal is read, unsealed
 * and decoded ahead of it on a reader thread (D-020).
 */
public final class Replay {
    /**
     * Records the reader hands the fold at a time, and batches it may run ahead. Large batches:
     * waking a parked thread can take a millisecond on a busy or virtual machine, so handoffs
     * must be rare next to the microsecond a record takes.
     */
    static final int BATCH = 4096;
    static final int BATCHES_AHEAD = 4;
    /** The timeline note of a delivery that meant nothing to the fold (most of them). */
    private static final String NOTHING = List.of().toString();

    /** One record of the timeline and what the fold said about it. */
    public record Step(long index, JournalRecord record, String note) {
    }

    /** The timeline up to the step asked for, and the fold's state there. */
    public record Result(List<Step> timeline, Optional<SledProjection> state, long records) {
    }

    /** Where a streamed replay ended: the fold's state and the records replayed. */
    public record Summary(Optional<SledProjection> state, long records) {
    }

    private Replay() {
    }

    /**
     * Replays {@code dir} up to and including record {@code until} (all records if negative).
     * The timeline keeps every record; {@code state} is the fold of the last entry reached.
     */
    public static Result run(Path dir, Optional<byte[]> key, Sled me, Signatures trust, long until)
            throws JournalException {
        List<Step> timeline = new ArrayList<>();
        Summary s = stream(dir, key, me, trust, until, timeline::add);
        return new Result(timeline, s.state(), s.records());
    }

    /**
     * As {@link #run}, handing each step to {@code each} as it is folded instead of keeping the
     * timeline: memory stays bounded for a journal of any length.
     */
    public static Summary stream(Path dir, Optional<byte[]> key, Sled me, Signatures trust, long until,
            Consumer<Step> each) throws JournalException {
        return stream(dir, key, me, trust, until, orderingOf(dir, key), each);
    }

    /** Bound on the records read to learn a journal's ordering. */
    static final long ORDERING_SCAN_RECORDS = 1_000_000;

    /**
     * The session ordering of the rack that wrote {@code dir} (issue 35: a signed rack's journal
     * folded as causal saw no session at all): the first session message delivered says, a grant
     * signed, a start causal; causal when none is found in the first
     * {@value #ORDERING_SCAN_RECORDS} records.
     */
    public static Ordering orderingOf(Path dir, Optional<byte[]> key) {
        Ordering[] found = {Ordering.CAUSAL};
        long[] n = {0};
        try {
            Journal.read(dir, key, r -> {
                if (++n[0] > ORDERING_SCAN_RECORDS) {
                    throw new Reader.Stop();
                }
                Message m = Reader.decode(r);
                if (m instanceof Message.SessionGrant) {
                    found[0] = Ordering.SIGNED;
                    throw new Reader.Stop();
                } else if (m instanceof Message.SessionStart) {
                    throw new Reader.Stop();
                }
            });
        } catch (Reader.Stop e) {
            // found, or looked long enough
        } catch (JournalException e) {
            // A damaged record before any session message: the replay itself says where.
        }
        return found[0];
    }

    /** As {@link #stream(Path, Optional, Sled, Signatures, long, Consumer)}, folding as {@code ordering}. */
    public static Summary stream(Path dir, Optional<byte[]> key, Sled me, Signatures trust, long until,
            Ordering ordering, Consumer<Step> each) throws JournalException {
        Recorded signatures = new Recorded(trust);
        SledProjection[] fold = new SledProjection[1];
        if (key.isEmpty()) {
            // A plain journal folds on this thread as it is read: reading costs about what
            // folding does, and handing records across cores cost more than it saved (D-020).
            long[] n = {0};
            try {
                Journal.read(dir, key, r -> {
                    if (until >= 0 && n[0] > until) {
                        throw new Reader.Stop();
                    }
                    each.accept(new Step(n[0]++, r, apply(new Read(r, Reader.decode(r)), fold, me, signatures,
                            ordering)));
                }, Optional.of(d -> each.accept(new Step(n[0]++, null, damage(d)))));
            } catch (Reader.Stop e) {
                // read enough
            }
            return new Summary(Optional.ofNullable(fold[0]), n[0]);
        }
        // A sealed one is read and unsealed on a reader thread while this one folds.
        Reader reader = new Reader(dir, key, until);
        Thread thread = new Thread(reader, "sush-replay-reader");
        thread.setDaemon(true);
        thread.start();
        long n = 0;
        try {
            while (true) {
                List<Read> batch = reader.take();
                if (batch.isEmpty()) {
                    break;
                }
                for (Read r : batch) {
                    each.accept(new Step(n++, r.record(), apply(r, fold, me, signatures, ordering)));
                }
            }
        } finally {
            reader.stop();
            thread.interrupt();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return new Summary(Optional.ofNullable(fold[0]), n);
    }

    /**
     * A record as the reader decoded it: a delivery's message too (null if not one, or
     * malformed); or, with no record, the damage the read passed over.
     */
    record Read(JournalRecord record, Message message, String damage) {
        Read(JournalRecord record, Message message) {
            this(record, message, null);
        }
    }

    /** The timeline's note of a damaged stretch (issue 35: said as such, never blamed on the key). */
    static String damage(Journal.Damage d) {
        return "damaged: record " + d.excerpt() + " does not read though the records before it did (a torn write: "
                + "a full disk, or a crash mid-write; or altered bytes); " + d.skipped() + " records passed over, the "
                + "rest of that life, and the replay goes on with the next (" + d.why() + ")";
    }

    /** Applies one record to the fold of the current entry; returns a note for the timeline. */
    static String apply(Read read, SledProjection[] fold, Sled me, Recorded signatures,
            Ordering ordering) {
        JournalRecord r = read.record();
        if (r == null) {
            // What was passed over was written by a life the next entry ends: no fold to keep.
            fold[0] = null;
            return read.damage();
        }
        if (r instanceof JournalRecord.Entered) {
            fold[0] = new SledProjection(me, signatures, ordering);
            return "entry: a fresh fold";
        }
        if (fold[0] == null) {
            return "before any entry: ignored";
        }
        if (r instanceof JournalRecord.Delivered) {
            JournalRecord.Delivered d = (JournalRecord.Delivered) r;
            List<SledProjection.Outcome> out;
            if (read.message() == null) {
                out = fold[0].apply(d.version(), d.payload()); // malformed: the fold counts it
            } else {
                if (read.message() instanceof Message.JobStart) {
                    signatures.record(((Message.JobStart) read.message()).job(), d.signature());
                }
                out = fold[0].apply(d.version(), read.message());
            }
            return note(out);
        }
        if (r instanceof JournalRecord.Resumed) {
            JournalRecord.Resumed x = (JournalRecord.Resumed) r;
            fold[0].resume(new SledProjection.Resumption(x.session(), x.committed(), x.successor()));
            return "resumed";
        }
        if (r instanceof JournalRecord.Passed) {
            JournalRecord.Passed x = (JournalRecord.Passed) r;
            try {
                return note(fold[0].passHead(x.job(), x.how()));
            } catch (IllegalStateException e) {
                // The live sled passes only the job at its head: this journal disagrees with its fold.
                return "inconsistent: " + e.getMessage();
            }
        }
        return "";
    }

    /**
     * What the fold said, one short item per outcome: jobs and sessions by codephrase, a
     * session's queued jobs by count (a whole signed job per line would bury the timeline).
     */
    static String note(List<SledProjection.Outcome> outcomes) {
        if (outcomes.isEmpty()) {
            return NOTHING;
        }
        StringBuilder b = new StringBuilder("[");
        for (SledProjection.Outcome o : outcomes) {
            if (b.length() > 1) {
                b.append(", ");
            }
            if (o instanceof SledProjection.Outcome.AtHead) {
                b.append("AtHead(").append(((SledProjection.Outcome.AtHead) o).job().request().job()).append(')');
            } else if (o instanceof SledProjection.Outcome.SessionEnded) {
                SledProjection.Outcome.SessionEnded e = (SledProjection.Outcome.SessionEnded) o;
                b.append("SessionEnded(").append(e.session()).append(", ").append(e.why()).append(", ")
                        .append(e.queued().size()).append(" queued here)");
            } else if (o instanceof SledProjection.Outcome.ConcurrentSessions) {
                SledProjection.Outcome.ConcurrentSessions c = (SledProjection.Outcome.ConcurrentSessions) o;
                b.append("ConcurrentSessions(").append(c.first().id()).append(", ").append(c.second().id()).append(')');
            } else if (o instanceof SledProjection.Outcome.Burnt) {
                b.append("Burnt(").append(((SledProjection.Outcome.Burnt) o).job().request().job()).append(')');
            } else if (o instanceof SledProjection.Outcome.Released) {
                b.append("Released(").append(((SledProjection.Outcome.Released) o).job().request().job()).append(')');
            } else if (o instanceof SledProjection.Outcome.Conflict) {
                SledProjection.Outcome.Conflict c = (SledProjection.Outcome.Conflict) o;
                b.append("Conflict(").append(c.refused().request().job()).append(", held ").append(c.held())
                        .append(", refused ").append(c.refused().request().successor()).append(')');
            } else if (o instanceof SledProjection.Outcome.ChainFull) {
                b.append("ChainFull(").append(((SledProjection.Outcome.ChainFull) o).job().request().job()).append(')');
            } else {
                SledProjection.Outcome.InvalidJob i = (SledProjection.Outcome.InvalidJob) o;
                b.append("InvalidJob(").append(i.job().request().job()).append(", ").append(i.reason()).append(')');
            }
        }
        return b.append(']').toString();
    }

    /**
     * The verdicts the journal recorded, by signed job; where it recorded none (an older journal),
     * the given keys decide. Bounded: the oldest verdicts are forgotten first.
     */
    static final class Recorded implements Signatures {
        static final int MAX_VERDICTS = 65_536;

        private final Signatures fallback;
        private final Map<SignedJob, Optional<InvalidJobReason>> verdicts;

        Recorded(Signatures fallback) {
            this(fallback, MAX_VERDICTS);
        }

        Recorded(Signatures fallback, int maxVerdicts) {
            this.fallback = fallback;
            this.verdicts = new LinkedHashMap<>() {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<SignedJob, Optional<InvalidJobReason>> eldest) {
                    return size() > maxVerdicts;
                }
            };
        }

        void record(SignedJob job, JournalRecord.Signature verdict) {
            switch (verdict) {
                case GOOD:
                    verdicts.put(job, Optional.empty());
                    break;
                case UNKNOWN_KEY:
                    verdicts.put(job, Optional.of(InvalidJobReason.UNKNOWN_KEY));
                    break;
                case BAD_SIGNATURE:
                    verdicts.put(job, Optional.of(InvalidJobReason.BAD_SIGNATURE));
                    break;
                default:
                    break;
            }
        }

        /** Grants are few: the given keys check them again (the journal records no verdict of them). */
        @Override
        public Optional<InvalidJobReason> grant(SignedGrant grant) {
            return fallback.grant(grant);
        }

        @Override
        public Optional<InvalidJobReason> signature(SignedJob job) {
            Optional<InvalidJobReason> recorded = verdicts.get(job);
            return recorded != null ? recorded : fallback.signature(job);
        }
    }

    /** Reads, unseals and decodes the journal on its own thread, in batches, in order. */
    private static final class Reader implements Runnable {
        private final Path dir;
        private final Optional<byte[]> key;
        private final long until;
        private final BlockingQueue<Object> batches = new ArrayBlockingQueue<>(BATCHES_AHEAD);
        private volatile boolean stopped;

        Reader(Path dir, Optional<byte[]> key, long until) {
            this.dir = dir;
            this.key = key;
            this.until = until;
        }

        /** Stops a read early (beyond {@code until}, or the fold gave up). */
        static final class Stop extends RuntimeException {
            private static final long serialVersionUID = 1L;

            Stop() {
                super(null, null, false, false);
            }
        }

        @Override
        public void run() {
            // What ends the stream for the fold: the end (an empty batch) only after a clean
            // read; any failure, an Error included, is handed over and thrown on its thread.
            Object last = new IllegalStateException("the journal reader stopped without a reason");
            List<Read> batch = new ArrayList<>(BATCH);
            try {
                long[] n = {0};
                try {
                    Journal.read(dir, key, r -> {
                        if (stopped || (until >= 0 && n[0] > until)) {
                            throw new Stop();
                        }
                        n[0]++;
                        batch.add(new Read(r, decode(r)));
                        if (batch.size() == BATCH) {
                            put(new ArrayList<>(batch));
                            batch.clear();
                        }
                    }, Optional.of(d -> {
                        n[0]++;
                        batch.add(new Read(null, null, damage(d)));
                    }));
                } catch (Stop e) {
                    // read enough
                }
                last = List.of();
            } catch (Throwable e) {
                last = e;
            } finally {
                try {
                    if (!stopped) {
                        // Records read before a failure are folded (and shown) before it.
                        if (!batch.isEmpty()) {
                            put(new ArrayList<>(batch));
                        }
                        put(last);
                    }
                } catch (Stop e) {
                    // the fold is gone
                }
            }
        }

        private static Message decode(JournalRecord r) {
            if (!(r instanceof JournalRecord.Delivered)) {
                return null;
            }
            try {
                return MessageCodec.decode(((JournalRecord.Delivered) r).payloadView());
            } catch (MessageException e) {
                return null;
            }
        }

        private void put(Object batch) {
            try {
                batches.put(batch);
            } catch (InterruptedException e) {
                stopped = true;
                throw new Stop();
            }
        }

        /** The next batch; empty at the end. A read error is thrown here, on the fold's thread. */
        @SuppressWarnings("unchecked")
        List<Read> take() throws JournalException {
            Object next;
            try {
                next = batches.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("replay interrupted", e);
            }
            if (next instanceof JournalException) {
                throw (JournalException) next;
            }
            if (next instanceof RuntimeException) {
                throw (RuntimeException) next;
            }
            if (next instanceof Error) {
                throw (Error) next;
            }
            if (next instanceof Throwable) {
                throw new IllegalStateException("the journal reader failed", (Throwable) next);
            }
            return (List<Read>) next;
        }

        void stop() {
            stopped = true;
            batches.clear();
        }
    }
}
