package sush.pipeline.sled;

import java.util.Optional;
import java.util.function.Consumer;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import sush.gossip.set.ReplicaException;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * The sled's loop and the ways out of it: the single-threaded scheduler every stage of the state
 * machine runs on, the guard that fails the sled closed when a stage throws, and what leaves the
 * sled (gossip, events, journal records). One object, so that every collaborator of
 * {@link SledRuntime} sends, records and fails the same way, and nothing is journaled after a
 * failure.
 */
final class Loop {
    private final Scheduler scheduler;
    private final Gossip gossip;
    private final Optional<Journal> journal;
    private final Sinks.Many<SledEvent> events = Sinks.many().replay().limit(SledRuntime.MAX_EVENT_HISTORY);
    /**
     * Set when a stage of the loop threw unexpectedly: no admission from then on (like an
     * untrusted store), and the daemon exits so its supervisor restarts it (the record makes
     * the restart safe).
     */
    private Optional<String> failed = Optional.empty();
    /** Set by {@link #close()}, from the daemon's closing thread; read by every stage. */
    private volatile boolean closing;
    /** A test hook at the start of every stage of the loop: tests throw from it (fail closed). */
    private Consumer<String> probe = stage -> { };

    Loop(Scheduler scheduler, Gossip gossip, Optional<Journal> journal) {
        this.scheduler = scheduler;
        this.gossip = gossip;
        this.journal = journal;
    }

    /** The single-threaded scheduler every stage runs on. */
    Scheduler scheduler() {
        return scheduler;
    }

    /** Fault injection for tests: {@code p} runs at the start of every stage of the loop and may throw. */
    void probe(Consumer<String> p) {
        this.probe = p;
    }

    /** Why the sled stopped admitting (an unexpected failure in its loop), if it did. */
    Optional<String> failure() {
        return failed;
    }

    /** Whether the sled keeps a journal at all. */
    boolean journaling() {
        return journal.isPresent();
    }

    /** Everything the sled does, in order; a late subscriber first gets the recent history. */
    Flux<SledEvent> events() {
        return events.asFlux();
    }

    /**
     * Runs one stage of the loop; anything it throws fails the sled closed instead of killing its
     * stream, {@code Error}s included (issue 35): a full disk under the memory-mapped journal
     * surfaces as an {@code InternalError}, and rethrowing it left a sled that folded nothing more
     * while it said it was ready. Failing closed stops admissions, says why ({@code /ready} 503),
     * and the daemon exits 70 for its supervisor.
     */
    void guarded(String stage, Runnable r) {
        if (closing) {
            // The daemon is closing its journal and links (issue 38: a stage run after them
            // found the journal closed and failed the sled closed on its way out).
            return;
        }
        try {
            probe.accept(stage);
            r.run();
        } catch (RuntimeException | Error e) {
            failClosed(stage, e);
        }
    }

    /**
     * Fail closed, never silently (issue 13): no admission from now on, one error event naming
     * the stage and the exception, and the daemon exits with its own status so that a
     * supervisor restarts it; the boundary record makes the restart safe.
     */
    void failClosed(String stage, Throwable err) {
        if (failed.isPresent()) {
            return;
        }
        String why = stage + ": " + err;
        if (!(err instanceof VirtualMachineError) || err instanceof StackOverflowError) {
            // Recorded while the journal still takes records. Not after a fault of the JVM (an
            // InternalError, out of memory): it may be the journal's own (a full disk under its
            // mapping), and writing to it again can crash the JVM instead of letting the daemon
            // exit 70 (issue 35).
            try {
                journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", "fail closed: " + why));
            } catch (RuntimeException e) {
                emit(new SledEvent.Failed("the journal could not record the failure: " + e));
            }
        }
        failed = Optional.of(why);
        emit(new SledEvent.Failed("the sled stopped admitting jobs after an unexpected failure in " + why));
        emit(new SledEvent.Halted(stage, String.valueOf(err)));
    }

    /** From now on no stage runs: the daemon is closing what the stages use. */
    void close() {
        closing = true;
    }

    /** Gossips {@code m}; false when the node refused it (the universe changed under the send, or it is still bootstrapping). */
    boolean send(Message m) {
        try {
            gossip.send(MessageCodec.encode(m));
            emit(new SledEvent.Gossiped(m));
        } catch (ReplicaException e) {
            if (e.kind() != ReplicaException.Kind.NO_IDENTITY) {
                emit(new SledEvent.Failed("gossip send of " + m.getClass().getSimpleName() + ": " + e.getMessage()));
            } else {
                emit(new SledEvent.Deferred(m)); // bootstrapping: the entry into the universe tells it again
            }
            return false;
        } catch (RuntimeException e) {
            // The universe changed under the send: the next entry re-announces what matters.
            emit(new SledEvent.Failed("gossip send of " + m.getClass().getSimpleName() + ": " + e.getMessage()));
            return false;
        }
        try {
            afterSend.accept(m);
        } catch (RuntimeException e) {
            emit(new SledEvent.Failed("after the send of " + m.getClass().getSimpleName() + ": " + e));
        }
        return true;
    }

    /** Called with each message this sled gossiped (its receipts, D-060). */
    private java.util.function.Consumer<Message> afterSend = m -> { };

    void afterSend(java.util.function.Consumer<Message> then) {
        afterSend = then;
    }

    /** Tells every subscriber of {@link #events()}. */
    void emit(SledEvent e) {
        events.tryEmitNext(e);
    }

    /** Appends {@code r} to the journal, if the sled keeps one, has not failed and is not closing. */
    void journal(JournalRecord r) {
        // Once failed, nothing more is journaled: the journal may be what failed (a full disk
        // under its mapping, where the next write can crash the JVM outright instead of
        // throwing), and the daemon is on its way out with status 70.
        if (failed.isEmpty() && !closing) {
            journal.ifPresent(j -> j.append(r));
        }
    }
}
