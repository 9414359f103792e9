package sush.locker.admission;

import java.util.Objects;
import java.util.Optional;

import sush.locker.record.SignedCommitted;
import sush.locker.record.SignedRecord;
import sush.projections.id.JobId;
import sush.projections.id.SessionRank;
import sush.projections.message.Message.SkipReason;

/**
 * The admission rules of ordered-sessions.md section 5 (ordering {@code signed}) as one pure
 * function beside the causal one: first rule that matches wins. Nothing here reads a universe
 * or a version, so migrations, cold boots, hops and replayed grants cannot matter.
 *
 * <p>Why it is safe: with the record intact, O1 holds because a commit happens only under rules
 * 4, 5 or 8, each at or above {@code committed}, and the record is written before the spawn. A
 * job of an older session is refused (6); of the committed session it can only be at or after
 * the successor (resumption), and positions before the head never reach it again (the burn
 * rule); of a newer session it was never committed here. With the record lost, the floor is at
 * or above every session that ran before (section 4). Rule 7 keeps safety when a signer reuses
 * an epoch.
 */
public final class SignedAdmission {
    private SignedAdmission() {
    }

    /**
     * Everything admission reads.
     *
     * @param trusted whether the locker's load was trusted
     * @param snapshot the record as it stood at this entry; empty when the slots loaded Empty
     * @param session the active session and its place in the order
     * @param job the targeted job
     * @param position where the job stands on this sled's chain
     */
    public record Input(boolean trusted, Optional<SignedRecord> snapshot, SessionRank session, JobId job,
            Admission.Position position) {
        public Input {
            Objects.requireNonNull(snapshot, "snapshot");
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(job, "job");
            Objects.requireNonNull(position, "position");
        }
    }

    public static Verdict decide(Input in) {
        if (!in.trusted()) {
            // Rule 1: with no trustworthy record we cannot know what ran; running nothing is safe.
            return new Verdict.Refuse("the M.2 boundary records disagree or are unreadable; the sled needs service");
        }
        Optional<SignedCommitted> committed = in.snapshot().flatMap(SignedRecord::committed);
        if (committed.isPresent() && committed.get().session().equals(in.session())
                && committed.get().job().equals(in.job())) {
            // The committed job may have run: adjudication reports its fate, nothing re-runs it.
            return new Verdict.Adjudicate();
        }
        if (in.position() == Admission.Position.BEHIND_HEAD) {
            // Behind the head: it ran, or may have run, or was passed over by this sled already.
            return new Verdict.Skip(SkipReason.ALREADY_HANDLED, "behind the head");
        }
        if (in.snapshot().isEmpty()) {
            // Rule 2: no record (never provisioned, or wiped): what ran here before is unknown.
            return new Verdict.Skip(SkipReason.BELOW_FLOOR, "2: no record: provision with a fresh signer epoch");
        }
        SignedRecord r = in.snapshot().get();
        if (in.session().epoch() <= r.floor()) {
            // Rule 3: every session that could have run here before the record was (re)created
            // was granted at or below the floor.
            return new Verdict.Skip(SkipReason.BELOW_FLOOR, "3: epoch at or below the floor "
                    + r.floor());
        }
        if (committed.isEmpty()) {
            // Rule 4: nothing committed since the record was created, and the session is above the floor.
            return new Verdict.Admit("4: nothing committed");
        }
        SessionRank c = committed.get().session();
        if (c.equals(in.session())) {
            // Rule 5: resumption already moved the head past the committed job.
            return new Verdict.Admit("5: the committed session resumes");
        }
        if (c.samePlace(in.session())) {
            // Rule 7 (before 6: the tie-break by session id would order them): one epoch, two sessions.
            return new Verdict.EpochReuse("7: signer " + c.signer().codephrase() + " issued epoch "
                    + c.epoch() + " to two sessions");
        }
        if (c.newerThan(in.session())) {
            // Rule 6: a newer session committed here supersedes it.
            return new Verdict.Skip(SkipReason.SUPERSEDED, "6: older than the committed session");
        }
        // Rule 8: newer than everything committed here.
        return new Verdict.Admit("8: newer than the committed session");
    }
}
