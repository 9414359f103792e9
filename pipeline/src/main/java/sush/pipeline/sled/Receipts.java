package sush.pipeline.sled;

import java.util.Optional;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import sush.locker.admission.HeadRules;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.Receipt;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * The sled's receipts (issue 40, D-060): a signed commit receipt once a job's commit landed in
 * the boundary record (with the record's sequence number), and a signed ending or refusal each
 * time the sled reports its own ending of a job. Gossiped like its statuses; without a signer
 * (a rack without TLS) the sled signs none.
 */
final class Receipts {
    /** Set once, before the sled starts ({@link SledRuntime#signReceipts}). */
    private volatile Optional<ReceiptSigner> signer = Optional.empty();
    private volatile Scheduler signing = SIGNING;
    private final Loop loop;
    private final String me;
    private final Supplier<EntryState> entry;
    private final HeadRules head;

    Receipts(Loop loop, String me, Supplier<EntryState> entry, HeadRules head) {
        this.loop = loop;
        this.me = me;
        this.entry = entry;
        this.head = head;
    }

    /** Signs with {@code s} (null: none) on {@code on} (null: the sleds' signing thread). */
    void signWith(ReceiptSigner s, Scheduler on) {
        signing = on == null ? SIGNING : on;
        signer = Optional.ofNullable(s);
    }

    /** {@code job}'s commit landed as record {@code sequence} of this sled's life {@code life}. */
    void committed(SignedJob job, String life, long sequence) {
        Optional<ReceiptSigner> by = signer; // read once: it may be replaced meanwhile (the launch bench)
        by.ifPresent(s -> send(s, Receipt.commit(s.rack(), me, job.request().session(), job.request().job(),
                job.request().successor(), life, sequence)));
    }

    /** The sled gossiped {@code m}: if it is its own ending of a job, the receipt for it. */
    void reported(Message m) {
        Optional<ReceiptSigner> by = signer; // read once
        if (by.isEmpty() || !Message.report(m).map(r -> r.ending() && r.baseboard().equals(me)).orElse(false)) {
            return;
        }
        JobId job = Message.report(m).get().job();
        EntryState at = entry.get();
        Optional<SessionId> session = at == null ? Optional.empty() : at.fold().sessionOf(job);
        if (session.isEmpty()) {
            return; // a job whose session this sled does not know: nothing it can sign for
        }
        String rack = by.get().rack();
        Receipt r;
        if (m instanceof Message.JobStopped) {
            Message.JobStopped s = (Message.JobStopped) m;
            r = new Receipt(Receipt.Kind.END, rack, me, session.get(), job, null, null, null, "stopped", s.exitCode(),
                    s.exitCode() == null ? "process-error" : null, s.stdoutBytes(), s.stdoutSha3(), s.stderrBytes(),
                    s.stderrSha3());
        } else if (m instanceof Message.JobErrored) {
            Message.JobErrored e = (Message.JobErrored) m;
            boolean interrupted = e.kind() == Message.JobError.INTERRUPTED;
            boolean ran = interrupted || head.committedThisLife(job);
            r = new Receipt(ran ? Receipt.Kind.END : Receipt.Kind.REFUSE, rack, me, session.get(), job, null, null,
                    null, interrupted ? "interrupted" : "error", null, wire(e.kind()), null, null, null, null);
        } else if (m instanceof Message.JobSkipped) {
            r = new Receipt(Receipt.Kind.REFUSE, rack, me, session.get(), job, null, null, null, "skipped", null,
                    wire(((Message.JobSkipped) m).reason()), null, null, null, null);
        } else if (m instanceof Message.JobCancelled) {
            r = new Receipt(Receipt.Kind.REFUSE, rack, me, session.get(), job, null, null, null, "cancelled", null,
                    null, null, null, null, null);
        } else {
            r = new Receipt(Receipt.Kind.REFUSE, rack, me, session.get(), job, null, null, null, "skipped", null,
                    "conflict", null, null, null, null);
        }
        send(by.get(), r);
    }

    /**
     * Signs off the loop (a P-256 signature costs about a millisecond on a busy sled: never on the
     * path of a commit, a launch or an ending), one at a time in order, then gossips it from the loop.
     */
    private void send(ReceiptSigner by, Receipt r) {
        byte[] body = r.body();
        Mono.fromCallable(() -> by.sign(body)).subscribeOn(signing).publishOn(loop.scheduler())
                .subscribe(sig -> loop.guarded("receipt", () -> loop.send(new Message.JobReceipt(me, body, sig))),
                        err -> loop.emit(new SledEvent.Failed("signing a receipt: " + err)));
    }

    /** Where receipts are signed: one thread, so that they leave in the order they were made. */
    private static final Scheduler SIGNING = Schedulers.newSingle("sled-receipts", true);

    private static String wire(Enum<?> e) {
        return MessageCodec.wireName(e);
    }
}
