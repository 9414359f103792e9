package sush.locker.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import sush.locker.record.RecordException;
import sush.locker.record.RecordFormat;

/**
 * The verdict of reading every slot, exactly as the load table of at-most-once.md section 8
 * ("equal" compares bodies, whatever the nonce or sequence). Pure: {@link #judge} sees only what
 * the slots returned.
 */
public record Load<R>(Verdict verdict, Optional<R> record, Optional<byte[]> body, List<Integer> restampOrder,
        String reason) {
    /** The rows of the load table. */
    public enum Verdict {
        /** Every directory exists and holds no file: trusted, no record. */
        EMPTY,
        /** Every file present with equal bodies. */
        ADOPT,
        /** One file missing, the rest equal: the re-stamp restores it. */
        RESTORE,
        /** Bodies differ under one process nonce with one highest sequence: a torn write; adopt the highest. */
        TORN,
        /** Anything else: untrusted for this whole life, never written. */
        DISCARD;

        public boolean trusted() {
            return this != DISCARD;
        }
    }

    public Load {
        restampOrder = List.copyOf(restampOrder);
        body = body.map(byte[]::clone);
    }

    /** What one slot returned when read. */
    public sealed interface Read {
        /** The directory exists; the file does not. */
        record Missing() implements Read {
        }

        record Present(byte[] bytes) implements Read {
        }

        record Failed(IOException error) implements Read {
        }
    }

    public boolean trusted() {
        return verdict.trusted();
    }

    /**
     * Judges what the slots returned, for the sled {@code baseboard} of a rack whose records are
     * in {@code format}. A record of the other ordering fails its strict decode, so the load
     * discards naming the mismatch (ordered-sessions.md section 6).
     */
    public static <R> Load<R> judge(List<Read> reads, RecordFormat<R> format, String baseboard) {
        List<SlotFile> files = new ArrayList<>();
        int missing = 0;
        for (int i = 0; i < reads.size(); i++) {
            Read r = reads.get(i);
            if (r instanceof Read.Failed) {
                return discard("slot " + i + ": " + ((Read.Failed) r).error());
            }
            if (r instanceof Read.Missing) {
                missing++;
                files.add(null);
                continue;
            }
            try {
                SlotFile f = SlotFile.decode(((Read.Present) r).bytes());
                format.decode(f.body(), baseboard);
                files.add(f);
            } catch (SlotFile.SlotFileException | RecordException e) {
                return discard("slot " + i + ": " + e.getMessage());
            }
        }
        if (missing == reads.size()) {
            return new Load<>(Verdict.EMPTY, Optional.empty(), Optional.empty(), List.of(), "no record on any slot");
        }
        SlotFile any = files.stream().filter(f -> f != null).findFirst().orElseThrow();
        boolean equal = files.stream().allMatch(f -> f == null || f.sameBody(any));
        if (equal && missing == 0) {
            return adopted(format, Verdict.ADOPT, any, files, "every slot holds the same record");
        }
        if (equal && missing == 1) {
            return adopted(format, Verdict.RESTORE, any, files, "one slot lacks the record the others hold");
        }
        if (missing > 0) {
            return discard(missing + " slots lack a file and the others disagree");
        }
        return torn(format, files);
    }

    /** Bodies differ and no file is missing: adoptable only as one process's torn write. */
    private static <R> Load<R> torn(RecordFormat<R> format, List<SlotFile> files) {
        SlotFile highest = files.get(0);
        for (SlotFile f : files) {
            if (!f.sameNonce(files.get(0))) {
                // Two processes disagree: no order between their writes can be trusted.
                return discard("slots disagree across process nonces");
            }
            if (Long.compareUnsigned(f.seq(), highest.seq()) > 0) {
                highest = f;
            }
        }
        SlotFile top = highest;
        if (files.stream().filter(f -> f.seq() == top.seq()).count() != 1) {
            return discard("slots disagree with no single newest write");
        }
        return adopted(format, Verdict.TORN, top, files, "a torn write of one process: the newest (seq " + top.seq()
                + ") is adopted");
    }

    private static <R> Load<R> adopted(RecordFormat<R> format, Verdict v, SlotFile chosen, List<SlotFile> files, String reason) {
        // Section 8: re-stamp differing or missing slots first, so a crash mid-re-stamp leaves
        // equal bodies or a one-nonce tear, never a two-nonce disagreement.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            if (files.get(i) == null || !files.get(i).sameBody(chosen)) {
                order.add(i);
            }
        }
        for (int i = 0; i < files.size(); i++) {
            if (!order.contains(i)) {
                order.add(i);
            }
        }
        try {
            R r = format.decode(chosen.body());
            return new Load<>(v, Optional.of(r), Optional.of(chosen.body()), order, reason);
        } catch (RecordException e) {
            throw new IllegalStateException("a body decoded once no longer decodes", e);
        }
    }

    private static <R> Load<R> discard(String reason) {
        return new Load<>(Verdict.DISCARD, Optional.empty(), Optional.empty(), List.of(), reason);
    }
}
