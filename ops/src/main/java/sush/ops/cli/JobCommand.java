package sush.ops.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.ops.Json;
import sush.ops.SignedRequests;
import sush.projections.id.Hashes;
import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;
import tools.jackson.databind.JsonNode;

/** {@code sush job start|sign|submit|status|history|stop|skip|output}. */
@Command(name = "job", description = "Sign, submit, follow and stop jobs.",
        subcommands = {JobCommand.Start.class, JobCommand.Sign.class, JobCommand.Submit.class, JobCommand.Status.class,
                JobCommand.History.class, JobCommand.Stop.class, JobCommand.Skip.class, JobCommand.Output.class,
                JobCommand.AttachJob.class})
public final class JobCommand implements Callable<Integer> {
    static final List<String> TERMINAL = List.of("stopped", "error", "cancelled", "skipped", "interrupted");

    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.out);
        return 0;
    }

    /** Shared by start and sign: a signed request for the next position of the active session. */
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

    static Placed signNext(Global g, String target, boolean concurrent, List<String> command,
            sush.projections.job.JobLimits limits) throws Client.Failure {
        return signNext(g, target, concurrent, command, limits, sush.projections.job.JobMode.RECORDED);
    }

    /**
     * A signed request for the active session's next position, kept in the session's chain before
     * it leaves (issue 34): the target is checked first (a job no sled can run is never given an
     * id); the position is the kept chain's tip once extended by what the sleds hold after it.
     */
    static Placed signNext(Global g, String target, boolean concurrent, List<String> command,
            sush.projections.job.JobLimits limits, sush.projections.job.JobMode mode) throws Client.Failure {
        checkTarget(target);
        checkCommand(command);
        Client c = g.client();
        String session = SessionCommand.active(c);
        if (session == null) {
            // Started the rack's way: a grant of this signer key in a signed rack, kept for `session resume`.
            session = (String) SessionCommand.begin(g, c).get("session_id");
            SessionCommand.awaitActive(c, session);
        }
        return place(c, SessionStore.of(c), SessionCommand.sessionId(session), g.signer(), commandLine(command),
                target, concurrent, limits, mode);
    }

    /** A request signed at its session's next position, and the kept chain that holds it. */
    record Placed(SignedJob job, SessionStore.Kept kept) {
    }

    /** Signs the next job of {@code session} at the kept chain's tip (extended from the rack) and keeps it. */
    static Placed place(Client c, SessionStore store, SessionId session, sush.projections.job.SignerKey key,
            String command, String target, boolean concurrent, sush.projections.job.JobLimits limits,
            sush.projections.job.JobMode mode) throws Client.Failure {
        SessionStore.Kept kept = Placement.extended(c, store, session);
        SignedJob job;
        try {
            job = key.sign(new JobRequest(session, kept.chain().tip(), command, target, concurrent, limits, mode));
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
    static Optional<SessionStore.Kept> keptHolding(Client c, JobId job) throws Client.Failure {
        String session = SessionCommand.active(c);
        if (session == null) {
            return Optional.empty();
        }
        SessionStore.Kept kept = SessionStore.of(c).chain(SessionCommand.sessionId(session));
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

    @Command(name = "start", description = "Sign and submit a job (starts a session if none is active).")
    static final class Start implements Callable<Integer> {
        @Mixin
        Global g;
        @Option(names = "--target", defaultValue = "*", description = "*, cubbies (0,3), baseboards or serials")
        String target;
        @Option(names = "--concurrent", description = "may start beside the previous job on each sled")
        boolean concurrent;
        @Option(names = "--wait", description = "follow the job until every targeted sled ended it")
        boolean await;
        @Mixin
        LimitOptions limits;
        @Option(names = {"-i", "--interactive"}, description = "run it on a terminal on exactly one sled (--target) "
                + "and attach to it here: Ctrl-] detaches, `sush job attach` returns")
        boolean interactive;
        @Option(names = {"-S", "--stream"}, description = "stream its stdout here as it is produced, from exactly one "
                + "sled (--target), never stored there; checked against the status's hash at the end (exit 6 if not)")
        boolean stream;
        @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command: one argument is a bash command "
                + "line as it is (`'ls | wc -l'`); several are an argument vector run exactly (`-- printf '%%s\\n' "
                + "'a b'`), each quoted for bash")
        List<String> command;

        @Override
        public Integer call() {
            try {
                if (interactive && stream) {
                    throw new Client.Failure(2, "bad-mode", "a job is interactive (-i) or streaming (-S), not both");
                }
                if (interactive || stream) {
                    oneSled(target);
                }
                Placed placed = signNext(g, target, concurrent, command, limits.limits(), interactive
                        ? sush.projections.job.JobMode.INTERACTIVE : stream ? sush.projections.job.JobMode.STREAMING
                        : sush.projections.job.JobMode.RECORDED);
                SignedJob job = placed.job();
                String id = job.request().job().codephrase();
                submit(g.client(), placed);
                remember(id);
                if (interactive) {
                    return attachTo(g, id);
                }
                if (stream) {
                    System.err.println(id);
                    return receive(g, id, new java.io.BufferedOutputStream(new java.io.FileOutputStream(
                            java.io.FileDescriptor.out), 1 << 16));
                }
                if (!await) {
                    g.print(Map.of("job_id", id), id);
                    return 0;
                }
                if (!g.json) {
                    System.out.println(id);
                }
                return waitFor(g, job.request().job(), target, Optional.of(job.request().successor()));
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "attach", description = "Attach this terminal to an interactive job's terminal: what it shows "
            + "appears here (the last 64 KiB first), what you type goes to it if you started its session; Ctrl-] "
            + "detaches and the job goes on. Exits with the job when it ends (0, or 5 when its exit is not 0).")
    static final class AttachJob implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(arity = "0..1", paramLabel = "ID", description = "the job's id (default: the last job started "
                + "from this account)")
        String id;

        @Override
        public Integer call() {
            try {
                String job = id != null ? jobId(id).codephrase() : last();
                return attachTo(g, job);
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    /** An interactive job names one sled: a baseboard, a cubby or a serial. */
    static void oneSled(String target) throws Client.Failure {
        try {
            if (!Target.parse(target).namesOneSled()) {
                throw new Client.Failure(2, "one-sled-only", "an interactive or streaming job runs on exactly one sled: --target "
                        + "BASEBOARD or --target CUBBY, not " + Client.printable(target));
            }
        } catch (TargetException e) {
            throw new Client.Failure(2, "bad-target", e.getMessage());
        }
    }

    /** Where a one-sled job runs: the sled, its status there, a client of its API. */
    record Where(String sled, JsonNode status, Client there) {
    }

    /** Waits (30 s at most) for the sled running {@code job} to report it; reaches it at the API it announced. */
    static Where where(Global g, String job) throws Client.Failure {
        Client c = g.client();
        String sled = null;
        JsonNode status = null;
        for (int i = 0; i < 600 && sled == null; i++) {
            try {
                for (Map.Entry<String, JsonNode> e : c.get("/jobs/" + job + "/status").get("statuses").properties()) {
                    sled = e.getKey();
                    status = e.getValue();
                }
            } catch (Client.Failure f) {
                if (!f.code().equals("unknown-job")) {
                    throw f;
                }
            }
            if (sled == null) {
                Client.sleep(50);
            }
        }
        if (sled == null) {
            throw new Client.Failure(4, "not-started", "job " + job + " has not started on any sled yet");
        }
        Client there = c;
        for (JsonNode s : c.get("/versions").get("sleds")) {
            if (s.path("baseboard").asString("").equals(sled) && s.has("api")) {
                there = g.client(s.get("api").asString());
            }
        }
        return new Where(sled, status, there);
    }

    /**
     * Receives a streaming job's stdout into {@code out} as it is produced, then checks its length
     * and SHA3-256 against the status of the sled that ran it: 0, 5 (exit not 0) or 6 (mismatch).
     */
    static int receive(Global g, String job, java.io.OutputStream out) throws Client.Failure {
        Where w = where(g, job);
        java.security.MessageDigest d = sush.projections.id.Hashes.sha3();
        long got = 0;
        java.io.InputStream in = null;
        for (int i = 0; i < 200 && in == null; i++) {
            java.net.http.HttpResponse<java.io.InputStream> r = w.there().raw("GET", "/jobs/" + job + "/stream",
                    new byte[0], Map.of(), java.net.http.HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() == 200) {
                in = r.body();
                break;
            }
            String body;
            try (java.io.InputStream b = r.body()) {
                body = new String(b.readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                body = "";
            }
            if (r.statusCode() != 404 || statusOn(w.there(), job, w.sled()).map(s -> TERMINAL.contains(s.path(
                    "status").asString())).orElse(false)) {
                throw new Client.Failure(r.statusCode() == 404 ? 4 : 2, "no-stream", "job " + job + " on " + w.sled()
                        + ": " + Client.printable(body.strip()));
            }
            Client.sleep(50);
        }
        if (in == null) {
            throw new Client.Failure(4, "no-stream", "job " + job + " never streamed on " + w.sled());
        }
        byte[] buf = new byte[64 * 1024];
        try (java.io.InputStream s = in) {
            int n;
            while ((n = s.read(buf)) >= 0) {
                d.update(buf, 0, n);
                out.write(buf, 0, n);
                got += n;
            }
            out.flush();
        } catch (java.io.IOException e) {
            throw new Client.Failure(3, "stream-cut", "the stream of job " + job + " broke after " + got + " bytes: "
                    + e.getMessage());
        }
        JsonNode end = null;
        for (int i = 0; i < 600 && end == null; i++) {
            end = statusOn(w.there(), job, w.sled()).filter(s -> TERMINAL.contains(s.path("status").asString()))
                    .orElse(null);
            if (end == null) {
                Client.sleep(50);
            }
        }
        if (end == null) {
            throw new Client.Failure(3, "no-status", "job " + job + " on " + w.sled() + " streamed " + got + " bytes "
                    + "but reported no end");
        }
        String sha3 = HexFormat.of().formatHex(d.digest());
        if (end.has("stdout_sha3") && (end.path("stdout_bytes").asLong() != got
                || !end.path("stdout_sha3").asString().equals(sha3))) {
            throw new Client.Failure(6, "hash-mismatch", "received " + got + " bytes (SHA3-256 " + sha3 + "), the "
                    + "status says " + end.path("stdout_bytes").asLong() + " (" + end.path("stdout_sha3").asString()
                    + ")");
        }
        System.err.println("job " + job + " on " + w.sled() + ": " + line(end) + "; " + got + " bytes streamed"
                + (end.has("stdout_sha3") ? ", hash verified" : ""));
        return end.path("exit_code").asInt(-1) == 0 ? 0 : 5;
    }

    private static Optional<JsonNode> statusOn(Client c, String job, String sled) {
        try {
            return Optional.ofNullable(c.get("/jobs/" + job + "/status?sled=" + query(sled)).get("statuses").get(sled));
        } catch (Client.Failure f) {
            return Optional.empty();
        }
    }

    /** The file keeping the last job this account started (for `sush job attach` without an id). */
    static java.nio.file.Path lastJobFile() {
        return Global.cacheDir().resolve("last-job");
    }

    static void remember(String job) {
        try {
            Files.createDirectories(Global.cacheDir());
            Files.writeString(lastJobFile(), job + "\n");
        } catch (java.io.IOException e) {
            // Only a convenience: `sush job attach ID` still works.
        }
    }

    static String last() throws Client.Failure {
        try {
            return jobId(Files.readString(lastJobFile()).strip()).codephrase();
        } catch (java.io.IOException e) {
            throw new Client.Failure(4, "no-last-job", "no job was started from this account here: sush job attach ID");
        }
    }

    /**
     * Attaches to an interactive job at the sled running it (found by its status, reached at
     * the API it announced); returns the exit code the job's end gives.
     */
    static int attachTo(Global g, String job) throws Client.Failure {
        Where w = where(g, job);
        if (TERMINAL.contains(w.status().path("status").asString())) {
            System.err.println("job " + job + " on " + w.sled() + " already ended: " + line(w.status()));
            return w.status().path("exit_code").asInt(-1) == 0 ? 0 : 5;
        }
        String sled = w.sled();
        Client there = w.there();
        Attach a = new Attach(there, job, System.out, System.err, System.console() != null);
        JsonNode exit;
        try {
            exit = a.run(System.in);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Client.Failure(130, "interrupted", "interrupted");
        }
        if (a.detached()) {
            System.err.println("detached from job " + job + " (it goes on): sush job attach " + job);
            return 0;
        }
        if (exit == null) {
            throw new Client.Failure(3, "terminal-lost", "the terminal of job " + job + " closed without its end; "
                    + "sush job status " + job);
        }
        System.err.println("job " + job + " on " + sled + ": " + line(exit));
        return exit.path("exit_code").asInt(-1) == 0 ? 0 : 5;
    }

    @Command(name = "sign", description = "Sign the next job of the active session, keep it in the session's chain "
            + "(as `job start` does: the next job goes after it), and print the request for `job submit`.")
    static final class Sign implements Callable<Integer> {
        @Mixin
        Global g;
        @Option(names = "--target", defaultValue = "*", description = "*, cubbies (0,3), baseboards or serials")
        String target;
        @Option(names = "--concurrent", description = "may start beside the previous job on each sled")
        boolean concurrent;
        @Mixin
        LimitOptions limits;
        @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command, as for `job start`")
        List<String> command;

        @Override
        public Integer call() {
            try {
                System.out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(
                        SignedRequests.toJson(signNext(g, target, concurrent, command, limits.limits()).job())));
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "submit", description = "Submit a signed request made by `sush job sign` (kept in its session's "
            + "chain: a request at a position the chain gives another request is refused here).")
    static final class Submit implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(paramLabel = "REQUEST", description = "a file holding the JSON `sush job sign` printed")
        Path file;

        @Override
        public Integer call() {
            SignedJob job;
            try {
                job = SignedRequests.fromJson(Json.MAPPER.readTree(Files.readString(file)));
            } catch (java.io.IOException | RuntimeException | SignedRequests.BadRequest e) {
                return g.fail(new Client.Failure(2, "bad-request-file", "cannot read " + file + ": " + e.getMessage()));
            }
            try {
                Client c = g.client();
                Placed p = kept(c, SessionStore.of(c), job);
                String id = job.request().job().codephrase();
                submit(c, p);
                g.print(Map.of("job_id", id), id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
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
            if (!java.util.Arrays.equals(there.get().request().digest(), r.digest())) {
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

    @Command(name = "status", description = "Show (or follow with --wait) a job's status on every sled.")
    static final class Status implements Callable<Integer> {
        @Mixin
        Global g;
        @Option(names = "--wait", description = "follow the job until every sled reporting it ended it")
        boolean await;
        @Option(names = "--full", description = "every field of every status")
        boolean full;
        @Parameters(paramLabel = "ID", description = "the job's id (a codephrase)")
        String id;

        @Override
        public Integer call() {
            try {
                JobId job = jobId(id);
                if (await) {
                    return waitFor(g, job, null, Optional.empty());
                }
                JsonNode s = g.client().get("/jobs/" + job.codephrase() + "/status");
                g.print(s, render(s.get("statuses"), full));
                return allZero(s.get("statuses")) ? 0 : 5;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "history", description = "Recent jobs, newest first, with a summary of their statuses over "
            + "the sleds (the jobs of the rack's current universe that this sled knows).")
    static final class History implements Callable<Integer> {
        @Mixin
        Global g;
        @Option(names = "--limit", defaultValue = "20", description = "jobs to show (1 to 1000; default ${DEFAULT-VALUE})")
        int limit;
        @Option(names = "--offset", defaultValue = "0", description = "newest jobs to skip first (paging)")
        int offset;
        @Option(names = "--session", paramLabel = "S", description = "only session S's jobs (a codephrase)")
        String session;

        @Override
        public Integer call() {
            try {
                StringBuilder path = new StringBuilder("/jobs?limit=").append(limit).append("&offset=").append(offset);
                if (session != null) {
                    path.append("&session=").append(java.net.URLEncoder.encode(session,
                            java.nio.charset.StandardCharsets.UTF_8));
                }
                JsonNode page = g.client().get(path.toString());
                StringBuilder text = new StringBuilder();
                for (JsonNode j : page.get("jobs")) {
                    text.append(j.get("job_id").asString()).append("  ").append(summary(j.get("statuses")))
                            .append('\n');
                }
                int shown = page.get("jobs").size();
                text.append(String.format(java.util.Locale.ROOT, "(%d of %d, from the newest %s)", shown,
                        page.get("total").asInt(), offset == 0 ? "on" : "past " + offset));
                g.print(page, text.toString());
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    /** A job's statuses over the sleds in a few words: {@code 4 stopped exit 0}, {@code 3 stopped exit 0, 1 error}. */
    static String summary(JsonNode statuses) {
        Map<String, Integer> counts = new java.util.LinkedHashMap<>();
        for (JsonNode st : statuses) {
            String word = st.path("status").asString();
            if (st.has("exit_code")) {
                word += " exit " + st.get("exit_code").asInt();
            }
            counts.merge(word, 1, Integer::sum);
        }
        if (counts.isEmpty()) {
            return "no status yet";
        }
        StringBuilder b = new StringBuilder();
        counts.forEach((w, n) -> b.append(b.length() == 0 ? "" : ", ").append(n).append(' ').append(w));
        return Client.printable(b.toString());
    }

    @Command(name = "stop", description = "Stop (kill) a job wherever it runs.")
    static final class Stop implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(paramLabel = "ID", description = "the job's id (a codephrase)")
        String id;

        @Override
        public Integer call() {
            try {
                Client c = g.client();
                JobId job = jobId(id);
                // Kept with the session's chain when this client keeps it: `session resume` sends
                // the stop again, so a whole-rack cold boot cannot lose it.
                Optional<SessionStore.Kept> kept = keptHolding(c, job);
                if (kept.isPresent()) {
                    kept.get().keepStop(job);
                }
                try {
                    c.post("/jobs/" + job.codephrase() + "/stop", Map.of());
                } catch (Client.Failure f) {
                    if (kept.isPresent() && f.exit() != 3 && f.exit() != 130) {
                        kept.get().forgetLast();
                    }
                    throw f;
                }
                g.print(Map.of("job_id", id, "stopping", true), "stopping " + id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "skip", description = "Burn a chain position of the active session (starter only).")
    static final class Skip implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(paramLabel = "ID", description = "the job's id (a codephrase)")
        String id;

        @Override
        public Integer call() {
            try {
                Client c = g.client();
                String session = SessionCommand.active(c);
                if (session == null) {
                    throw new Client.Failure(4, "no-session", "no session is active");
                }
                JobId position = jobId(id);
                // Kept with the session's chain before it leaves: placement walks over it, and
                // `session resume` sends it again.
                SessionStore.Kept kept = SessionStore.of(c).chain(SessionCommand.sessionId(session));
                kept.keepBurn(position);
                try {
                    c.post("/sessions/" + session + "/skip/" + position.codephrase(), Map.of());
                } catch (Client.Failure f) {
                    if (f.exit() != 3 && f.exit() != 130) {
                        kept.forgetLast();
                    }
                    throw f;
                }
                g.print(Map.of("burnt", id), "burnt " + id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "output", description = "A sled's recorded output of a job, fetched through the --url sled "
            + "(any sled answers for any sled) and verified against the hash in that sled's status before any of it "
            + "is shown or named.")
    static final class Output implements Callable<Integer> {
        @Mixin
        Global g;
        @Option(names = "--sled", required = true, description = "the sled that ran the job (its baseboard)")
        String sled;
        @Option(names = "--stderr", description = "the job's standard error instead of its standard output")
        boolean stderr;
        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write it to FILE instead of standard "
                + "output: fetched in parallel ranges, with a progress bar on a terminal; FILE appears only once "
                + "verified")
        Path file;
        @Option(names = "--parallel", defaultValue = "4", description = "ranges fetched at once (1 to "
                + Download.MAX_PARALLEL + "; default: ${DEFAULT-VALUE}); a range is at least 1 MiB")
        int parallel;
        @Option(names = "--range", paramLabel = "FIRST-LAST", description = "only these bytes, as HTTP ranges "
                + "say them: 0-99, 1000- (from byte 1000), -100 (the last 100); printed as served (a part cannot be "
                + "checked against the whole output's hash)")
        String range;
        @Parameters(paramLabel = "ID", description = "the job's codephrase")
        String id;

        @Override
        public Integer call() {
            try {
                String job = jobId(id).codephrase();
                if (range != null) {
                    return part(job);
                }
                if (parallel < 1 || parallel > Download.MAX_PARALLEL) {
                    throw new Client.Failure(2, "bad-parallel", "--parallel is 1 to " + Download.MAX_PARALLEL);
                }
                Client c = g.client();
                JsonNode st = outputStatus(c, job, sled);
                String stream = stderr ? "stderr" : "stdout";
                long length = st.get(stream + "_bytes").asLong();
                String want = st.get(stream + "_sha3").asString();
                String path = "/jobs/" + job + "/output/" + stream + "?sled=" + query(sled);
                Download.Progress p = new Download.Progress(stream + " of " + sled, length,
                        System.console() != null && !g.json ? System.err : null);
                if (file != null) {
                    Download.fetch(c, path, length, want, file, parallel, p);
                    g.print(Map.of("job_id", job, "sled", sled, "stream", stream, "bytes", length, "sha3", want,
                            "file", file.toString()), length + " bytes of " + stream + " from " + sled
                                    + " written to " + file + " (hash verified)");
                    return 0;
                }
                // To standard output: into a private temporary file first, shown only once verified.
                Path tmp = Files.createTempFile("sush-output-", ".tmp");
                try {
                    Download.fetch(c, path, length, want, tmp, parallel, new Download.Progress("", length, null));
                    Files.copy(tmp, System.out);
                    System.out.flush();
                } finally {
                    Files.deleteIfExists(tmp);
                }
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            } catch (java.io.IOException e) {
                return g.fail(new Client.Failure(1, "write-failed", e.getMessage()));
            }
        }

        private int part(String job) throws Client.Failure {
            byte[] b = rangeOf(g.client(), job, sled, stderr, range);
            System.out.write(b, 0, b.length);
            System.out.flush();
            return 0;
        }
    }

    /** {@code --range}: the bytes the sled serves for one range of the output, as they are. */
    static byte[] rangeOf(Client c, String job, String sled, boolean stderr, String range) throws Client.Failure {
        if (!range.matches("[0-9]+-[0-9]*|-[0-9]+")) {
            throw new Client.Failure(2, "bad-range", "--range is FIRST-LAST, FIRST- or -COUNT (bytes), not " + range);
        }
        java.net.http.HttpResponse<byte[]> r = c.raw("GET", "/jobs/" + job + "/output/" + (stderr ? "stderr"
                : "stdout") + "?sled=" + query(sled), new byte[0], Map.of("Range", "bytes=" + range),
                java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 206) {
            String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
            throw new Client.Failure(r.statusCode() == 404 ? 4 : 2, r.statusCode() == 416 ? "bad-range"
                    : "http-" + r.statusCode(), "range " + range + ": " + Client.printable(body.strip()));
        }
        return r.body();
    }

    /** A query parameter's value, encoded. */
    static String query(String value) {
        return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Sled {@code sled}'s status of {@code job} with its output's lengths and hashes, as any sled knows it. */
    static JsonNode outputStatus(Client c, String job, String sled) throws Client.Failure {
        JsonNode st = c.get("/jobs/" + job + "/status?sled=" + query(sled)).get("statuses").get(sled);
        if (st == null || !st.has("stdout_sha3")) {
            throw new Client.Failure(4, "no-output", "sled " + sled + " reports no output for " + job);
        }
        return st;
    }

    /** A job id from its codephrase; a malformed one is a refusal (exit 2). */
    static JobId jobId(String phrase) throws Client.Failure {
        try {
            return JobId.parse(phrase);
        } catch (IdException e) {
            throw new Client.Failure(2, "bad-codephrase", e.getMessage());
        }
    }

    /** The output the sled serves, checked against the length and hash in that sled's status. */
    static byte[] verifiedOutput(Client c, String job, String sled, boolean stderr) throws Client.Failure {
        JsonNode st = outputStatus(c, job, sled);
        byte[] out = c.bytes("/jobs/" + job + "/output/" + (stderr ? "stderr" : "stdout") + "?sled=" + query(sled));
        String want = st.get(stderr ? "stderr_sha3" : "stdout_sha3").asString();
        if (!HexFormat.of().formatHex(Hashes.sha3Raw(out)).equals(want)) {
            throw new Client.Failure(6, "hash-mismatch", "the output served does not match the hash in the status");
        }
        return out;
    }

    /**
     * Follows the event stream until every targeted sled (every sled reporting, if the target
     * is not given) has a terminal status; one line per sled as it changes.
     */
    /**
     * Follows {@code job} until every targeted sled ended it. {@code mine}, when the caller signed
     * the request, is its successor: a sled that reports a conflict refusing that request holds
     * another request at this position (ordered-sessions.md section 9), so its status there is not
     * this job's, and the job failed there.
     */
    static int waitFor(Global g, JobId job, String target, Optional<JobId> mine) throws Client.Failure {
        Client c = g.client();
        List<String> targeted = new ArrayList<>();
        for (JsonNode s : c.get("/versions").get("sleds")) {
            Sled sled = new Sled(s.get("baseboard").asString(), s.get("cubby").asInt());
            try {
                if (target == null || Target.parse(target).runsOn(sled)) {
                    targeted.add(sled.baseboard());
                }
            } catch (TargetException e) {
                throw new Client.Failure(2, "bad-target", e.getMessage());
            }
        }
        Map<String, JsonNode> latest = new TreeMap<>();
        String phrase = job.codephrase();
        LiveLines live = new LiveLines(targeted, !g.json && System.console() != null);
        c.follow(ev -> {
            if (!phrase.equals(ev.path("job_id").asString())) {
                return false;
            }
            String board = ev.path("baseboard").asString();
            JsonNode before = latest.get(board);
            boolean frozen = before != null && TERMINAL.contains(before.path("status").asString());
            if (!frozen) {
                latest.put(board, ev);
                if (!g.json && (before == null || !before.path("status").equals(ev.path("status")))) {
                    live.show(board, line(ev));
                }
            }
            return !targeted.isEmpty() && targeted.stream().allMatch(b -> latest.containsKey(b)
                    && TERMINAL.contains(latest.get(b).path("status").asString()));
        });
        JsonNode answer = c.get("/jobs/" + phrase + "/status");
        JsonNode statuses = answer.get("statuses");
        List<String> conflicted = new ArrayList<>();
        answer.path("conflicts").properties().forEach(e -> {
            if (mine.map(m -> m.codephrase().equals(e.getValue().path("refused").asString())).orElse(false)) {
                conflicted.add(e.getKey());
            }
        });
        if (!g.json) {
            printOutputs(g, phrase, statuses);
            for (String b : conflicted) {
                System.err.println("job " + phrase + " on " + b + ": conflict: that sled holds another request at this "
                        + "position; this one never runs there, and its status there is the other request's");
            }
        }
        if (g.json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("job_id", phrase);
            doc.put("statuses", statuses);
            if (!conflicted.isEmpty()) {
                doc.put("conflicts", conflicted);
            }
            System.out.println(Json.MAPPER.writeValueAsString(doc));
        }
        return allZero(statuses) && conflicted.isEmpty() ? 0 : 5;
    }

    /**
     * One line per targeted sled. On a terminal the lines are drawn once and redrawn in place as
     * statuses change (a line freezes at its terminal status); elsewhere each change is a line.
     */
    static final class LiveLines {
        private final List<String> sleds;
        private final Map<String, String> text = new LinkedHashMap<>();
        private final boolean redraw;

        LiveLines(List<String> sleds, boolean redraw) {
            this.sleds = sleds;
            this.redraw = redraw;
            sleds.forEach(b -> text.put(b, "queued"));
            if (redraw) {
                sleds.forEach(b -> System.out.println("  " + Client.printable(b) + "  queued"));
            }
        }

        void show(String board, String line) {
            if (!redraw || !text.containsKey(board)) {
                System.out.println("  " + Client.printable(board) + "  " + line);
                return;
            }
            text.put(board, line);
            StringBuilder b = new StringBuilder("\u001b[" + sleds.size() + "A");
            text.forEach((k, v) -> b.append("\u001b[2K  ").append(k).append("  ").append(v).append('\n'));
            System.out.print(b);
            System.out.flush();
        }
    }

    /** Each sled's stdout, fetched from that sled and verified against its status's hash. */
    private static void printOutputs(Global g, String job, JsonNode statuses) {
        statuses.properties().forEach(e -> {
            if (!e.getValue().has("stdout_sha3")) {
                return;
            }
            try {
                byte[] out = verifiedOutput(g.client(), job, e.getKey(), false);
                System.out.println("--- " + e.getKey() + " (" + out.length + " bytes, hash verified)");
                System.out.print(new String(out, java.nio.charset.StandardCharsets.UTF_8));
            } catch (Client.Failure f) {
                System.out.println("--- " + e.getKey() + ": output not shown (" + f.getMessage() + ")");
            }
        });
    }

    /** One status as a line; every field from the rack is printed with its control characters escaped. */
    static String line(JsonNode s) {
        StringBuilder b = new StringBuilder(s.path("status").asString());
        if (s.has("exit_code")) {
            b.append(" exit ").append(s.get("exit_code").asInt());
        }
        if (s.has("error")) {
            b.append(' ').append(s.get("error").asString()).append(": ").append(s.path("detail").asString());
        }
        if (s.has("reason")) {
            b.append(' ').append(s.get("reason").asString());
        }
        if (s.has("sled_started_at")) {
            // The sled's own clock: shown as it said, labelled so, never compared across sleds.
            b.append("  (sled clock: started ").append(s.get("sled_started_at").asString());
            if (s.has("sled_ended_at")) {
                b.append(", ended ").append(s.get("sled_ended_at").asString());
            }
            if (s.has("duration_ms")) {
                b.append(String.format(java.util.Locale.ROOT, "; took %.3f s", s.get("duration_ms").asLong() / 1000.0));
            }
            b.append(')');
        }
        return Client.printable(b.toString());
    }

    static String render(JsonNode statuses, boolean full) {
        StringBuilder b = new StringBuilder();
        statuses.properties().forEach(e -> b.append(Client.printable(e.getKey())).append("  ")
                .append(full ? e.getValue().toString() : line(e.getValue())).append('\n'));
        return b.toString().stripTrailing();
    }

    static boolean allZero(JsonNode statuses) {
        if (statuses == null || statuses.isEmpty()) {
            return false;
        }
        for (JsonNode s : statuses) {
            if (!"stopped".equals(s.path("status").asString()) || s.path("exit_code").asInt(-1) != 0) {
                return false;
            }
        }
        return true;
    }
}
