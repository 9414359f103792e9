package sush.ops.cli;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import sush.ops.wire.SignedRequests;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import sush.projections.job.JobRequest;
import sush.projections.job.JobWave;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * The requests of {@code sush job}: a command line from its words, checked; signed at the active
 * session's next position and kept in the session's chain before it leaves; submitted, or dropped
 * from the chain when a sled refused it outright.
 */
final class JobRequests {
    private JobRequests() {
    }

    /**
     * The job's command, a bash command line: one argument is taken as a shell command as it is
     * ({@code sush job start 'ls | wc -l'}); several are an argument vector, each quoted for the
     * shell, so the job runs exactly those arguments ({@code sush job start -- printf '%s\n' 'a b'}).
     */
    static String commandLine(List<String> command) {
        if (command.size() == 1) {
            return command.get(0);
        }
        StringBuilder b = new StringBuilder();
        for (String arg : command) {
            b.append(b.length() == 0 ? "" : " ").append(shellQuote(arg));
        }
        return b.toString();
    }

    /** {@code arg} as one shell word: bare when it holds only characters the shell leaves alone, else single-quoted. */
    static String shellQuote(String arg) {
        if (!arg.isEmpty() && arg.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9') || "_@%+=:,./-".indexOf(c) >= 0)) {
            return arg;
        }
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    /** Shared by start and sign: a signed request for the next position of the active session. */
    static Placed signNext(Global g, String target, boolean concurrent, List<String> command,
            JobLimits limits) throws Client.Failure {
        return signNext(g, target, concurrent, command, limits, JobMode.RECORDED, JobWave.NONE);
    }

    /**
     * A signed request for the active session's next position, kept in the session's chain before
     * it leaves (issue 34): the target is checked first (a job no sled can run is never given an
     * id); the position is the kept chain's tip once extended by what the sleds hold after it.
     */
    static Placed signNext(Global g, String target, boolean concurrent, List<String> command,
            JobLimits limits, JobMode mode, JobWave wave) throws Client.Failure {
        checkTarget(target);
        checkCommand(command);
        Client c = g.client();
        if (wave.isSet()) {
            target = WaveOptions.cubbies(c, target); // D-059: every sled ranks the same cubbies
        }
        String session = SessionCommand.active(c);
        if (session == null) {
            // Started the rack's way: a grant of this signer key in a signed rack, kept for `session resume`.
            session = SessionCommand.begin(g, c).sessionId();
            SessionCommand.awaitActive(c, session);
        }
        return place(c, SessionStore.of(g, c), SessionCommand.sessionId(session), g.signer(), commandLine(command),
                target, concurrent, limits, mode, wave);
    }

    /** A request signed at its session's next position, and the kept chain that holds it. */
    record Placed(SignedJob job, SessionStore.Kept kept) {
    }

    /** Signs the next job of {@code session} at the kept chain's tip (extended from the rack) and keeps it. */
    static Placed place(Client c, SessionStore store, SessionId session, SignerKey key, String command,
            String target, boolean concurrent, JobLimits limits, JobMode mode) throws Client.Failure {
        return place(c, store, session, key, command, target, concurrent, limits, mode, JobWave.NONE);
    }

    /** As {@link #place(Client, SessionStore, SessionId, SignerKey, String, String, boolean, JobLimits, JobMode)}, in waves. */
    static Placed place(Client c, SessionStore store, SessionId session, SignerKey key, String command,
            String target, boolean concurrent, JobLimits limits, JobMode mode, JobWave wave) throws Client.Failure {
        SessionStore.Kept kept = Placement.extended(c, store, session);
        SignedJob job;
        try {
            job = key.sign(new JobRequest(session, kept.chain().tip(), command, target, concurrent, limits, mode,
                    wave));
        } catch (RuntimeException e) {
            throw new Client.Failure(1, "bad-request", "cannot build the request: " + e.getMessage());
        }
        kept.keep(job);
        return new Placed(job, kept);
    }

    /**
     * Submits a placed request; one a sled refused outright (an answer, not a lost connection) never
     * left, and is dropped from the kept chain so that the next job takes its position.
     */
    static void submit(Client c, Placed p) throws Client.Failure {
        try {
            c.post("/jobs/" + p.job().request().job().codephrase() + "/start", SignedRequests.toJson(p.job()));
        } catch (Client.Failure f) {
            if (f.exit() != 3 && f.exit() != 130) {
                p.kept().forgetLast();
            }
            throw f;
        }
    }

    /** The kept chain of the active session, when it holds {@code job}'s request. */
    static Optional<SessionStore.Kept> keptHolding(Global g, Client c, JobId job) throws Client.Failure {
        String session = SessionCommand.active(c);
        if (session == null) {
            return Optional.empty();
        }
        SessionStore.Kept kept = SessionStore.of(g, c).chain(SessionCommand.sessionId(session));
        return kept.chain().request(job).isPresent() ? Optional.of(kept) : Optional.empty();
    }

    /**
     * Issue 35: a command is the bytes the operator typed, or refused. The JVM decodes its
     * arguments as UTF-8 (the launcher sees to it) and turns bytes that are not UTF-8 into U+FFFD:
     * such a command would be signed and run rewritten, so it is refused before anything is signed.
     */
    static void checkCommand(List<String> command) throws Client.Failure {
        for (String arg : command) {
            int at = arg.indexOf('\uFFFD');
            if (at >= 0) {
                throw new Client.Failure(2, "not-utf8", "the command holds bytes that are not UTF-8 (at character " + at
                        + " of " + Client.printable(arg) + "): it would run rewritten, so nothing was signed");
            }
        }
    }

    /** A target every sled can parse, or a typed refusal naming it (nothing is signed or sent). */
    static void checkTarget(String target) throws Client.Failure {
        try {
            Target.parse(target);
        } catch (TargetException e) {
            throw new Client.Failure(2, "bad-target", "--target: " + e.getMessage());
        }
    }

    /**
     * {@code job} in its session's kept chain: kept already (signed here by {@code job sign}), or
     * kept now when it stands at the chain's next position. A request at a position the chain
     * gives another request, or beyond the next one, is refused: it would never run, or a sled
     * would report the other request's fate for it.
     */
    static Placed kept(Client c, SessionStore store, SignedJob job) throws Client.Failure {
        JobRequest r = job.request();
        SessionStore.Kept kept = store.chain(r.session());
        Optional<SignedJob> there = kept.chain().request(r.job());
        if (there.isEmpty()) {
            kept = Placement.extended(c, store, r.session());
            there = kept.chain().request(r.job());
        }
        if (there.isPresent()) {
            if (!Arrays.equals(there.get().request().digest(), r.digest())) {
                throw new Client.Failure(2, "conflict", "position " + r.job().codephrase() + " of the session's chain "
                        + "holds another request (" + HexFormat.of().formatHex(there.get().request().digest())
                        + "); this one (" + HexFormat.of().formatHex(r.digest()) + ") would never run; sign it again");
            }
            return new Placed(job, kept);
        }
        if (!r.job().equals(kept.chain().tip())) {
            throw new Client.Failure(2, "not-next", "the request is at " + r.job().codephrase() + ", but the session's "
                    + "chain continues at " + kept.chain().tip().codephrase() + ": it would wait there for ever; sign "
                    + "it again");
        }
        kept.keep(job);
        return new Placed(job, kept);
    }
}
