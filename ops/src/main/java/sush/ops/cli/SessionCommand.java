package sush.ops.cli;

import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.ops.signer.EpochFile;
import sush.ops.wire.ActiveSession;
import sush.ops.wire.Answers;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SledVersion;
import sush.projections.fold.Ordering;
import sush.projections.id.IdException;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.ClientChain;
import sush.projections.job.Grant;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/** {@code sush session start|resume|stop|status}. */
@Command(name = "session", description = "Start, resume, stop or show the operator session.",
        subcommands = {SessionCommand.Start.class, SessionCommand.Resume.class, SessionCommand.Stop.class,
            SessionCommand.Allow.class, SessionCommand.Deny.class,
                SessionCommand.Status.class})
public final class SessionCommand implements Callable<Integer> {
    /** Bound on waiting for a session to be active ({@code --wait}): polls of {@link #POLL_MS}. */
    static final int MAX_POLLS = 200;
    static final long POLL_MS = 50;

    /** Where this command runs: its usage is printed on the invocation's standard output. */
    private final Invocation invocation;

    SessionCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    @Command(name = "start", description = "Start a session (it supersedes the active one). In a signed rack the "
            + "signer key (--key or SUSH_SIGNER_KEY) grants it with a fresh epoch, and the grant is kept for "
            + "`sush session resume`.")
    static final class Start implements Callable<Integer> {
        @Mixin
        Global g;

        @Option(names = "--wait", description = "wait until the session is active on this sled")
        boolean await;

        @Override
        public Integer call() {
            try {
                Client c = g.client();
                Begun started = begin(g, c);
                String id = started.sessionId();
                if (await) {
                    awaitActive(c, id);
                }
                g.print(started, id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "resume", description = "Re-submit a kept session in a signed rack: its grant (the newest this "
            + "client keeps for the rack asked, or SESSION's), then every request, burn and stop it sent in the session, "
            + "in order. This is what continues a session after a whole-rack cold boot: no sled keeps gossip across "
            + "one, each sled resumes the session at the successor of the last job it committed, and the re-sent "
            + "chain links every sled to where the session goes on; sleds answer what ran or may have run "
            + "AlreadyHandled, and run only what never ran.")
    static final class Resume implements Callable<Integer> {
        @Mixin
        Global g;

        @Option(names = "--wait", description = "wait until the session is active on this sled")
        boolean await;

        @Parameters(arity = "0..1", paramLabel = "SESSION", description = "the session's id (default: the last "
                + "one started here)")
        String session;

        @Override
        public Integer call() {
            try {
                Client c = g.client();
                if (ordering(c) != Ordering.SIGNED) {
                    throw new Client.Failure(2, "wrong-ordering", "this rack's ordering is causal: its sessions have "
                            + "no grant to resume; start one with `sush session start`");
                }
                SessionStore store = SessionStore.of(g, c);
                SignedGrant grant = session == null ? store.newestGrant() : store.grant(sessionId(session));
                Begun resumed = resume(c, store, grant);
                String id = resumed.sessionId();
                if (await) {
                    awaitActive(c, id);
                }
                if (!g.json) {
                    g.invocation().err().println("resumed " + id + ": its grant, then " + resumed.requests()
                            + " requests, " + resumed.burns() + " burns and " + resumed.stops() + " stops sent again");
                }
                g.print(resumed, id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "stop", description = "Stop the active session.")
    static final class Stop implements Callable<Integer> {
        @Mixin
        Global g;

        @Override
        public Integer call() {
            try {
                String id = active(g.client());
                if (id == null) {
                    throw new Client.Failure(4, "no-session", "no session is active");
                }
                g.client().post("/sessions/" + id + "/stop", Map.of());
                g.print(Map.of("session_id", id, "stopping", true), "stopping " + id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "allow", description = "Let an operator key watch the active session's interactive jobs, or "
            + "type in them with --write (starter only; every logged-in operator watches unless denied).")
    static final class Allow implements Callable<Integer> {
        @Mixin
        Global g;
        @Option(names = "--write", description = "the key may type and resize, as the starter does")
        boolean write;
        @Parameters(paramLabel = "KEY_ID", description = "the operator key's id (a codephrase, as `sush iam list` "
                + "shows it)")
        String key;

        @Override
        public Integer call() {
            return set(g, key, write ? "write" : "read");
        }
    }

    @Command(name = "deny", description = "Keep an operator key from attaching to the active session's interactive "
            + "jobs at all (starter only).")
    static final class Deny implements Callable<Integer> {
        @Mixin
        Global g;
        @Parameters(paramLabel = "KEY_ID", description = "the operator key's id (a codephrase)")
        String key;

        @Override
        public Integer call() {
            return set(g, key, "none");
        }
    }

    /** Sets a key's access to the active session's interactive jobs. */
    static int set(Global g, String key, String access) {
        try {
            String id = active(g.client());
            if (id == null) {
                throw new Client.Failure(4, "no-session", "no session is active");
            }
            String kid = key.strip().replace(' ', '-');
            Answers.AccessSet r = g.client().post("/sessions/" + id + "/access/" + kid + "?access=" + access, Map.of(),
                    Answers.AccessSet.class);
            String said = Said.text(r.keyId(), kid);
            g.print(Map.of("session_id", id, "key_id", said, "access", access),
                    said + ": " + access + " on the interactive jobs of " + id);
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }

    @Command(name = "status", description = "Show the active session.")
    static final class Status implements Callable<Integer> {
        @Mixin
        Global g;

        @Override
        public Integer call() {
            try {
                JsonNode s = g.client().get("/sessions");
                g.print(s, render(Client.read(s, ActiveSession.class)));
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    /** A session as a line: a signed one by its signer and epoch (no sled accepts it), a causal one by its acceptor. */
    static String render(ActiveSession s) {
        String head = Said.text(s.sessionId()) + " (started by " + Client.printable(Said.text(s.starter()));
        if ("signed".equals(s.ordering())) {
            return head + "; granted by " + Client.printable(Said.text(s.signer())) + " at epoch "
                    + Said.number(s.epoch()) + ")";
        }
        return head + " through " + Client.printable(Said.text(s.acceptor())) + ")";
    }

    /**
     * A session as {@code session start} and {@code session resume} print it: its id; in the
     * signed ordering also the ordering, the grant's epoch and signer, and where the grant is kept
     * (start) or what of its chain was sent again (resume).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Begun(@JsonProperty("session_id") String sessionId, String ordering, Long epoch, String signer,
            @JsonProperty("grant_file") String grantFile, Integer requests, Integer burns, Integer stops) {
        /** This session, its grant kept in {@code file}. */
        Begun keptIn(String file) {
            return new Begun(sessionId, ordering, epoch, signer, file, requests, burns, stops);
        }

        /** This session, with what of its chain was sent again. */
        Begun sentAgain(int requestsSent, int burnsSent, int stopsSent) {
            return new Begun(sessionId, ordering, epoch, signer, grantFile, requestsSent, burnsSent, stopsSent);
        }
    }

    /**
     * Starts a session the rack's way and describes it: causal, a sled accepts a start; signed,
     * this signer grants one (a fresh epoch from the key's epoch file), the grant is kept under
     * the rack's id, then submitted (dropped again if a sled refused it).
     */
    static Begun begin(Global g, Client c) throws Client.Failure {
        return begin(g, c, SessionStore.of(g, c));
    }

    /** As {@link #begin(Global, Client)}, keeping the grant in {@code store}. */
    static Begun begin(Global g, Client c, SessionStore store) throws Client.Failure {
        if (ordering(c) == Ordering.CAUSAL) {
            return new Begun(c.post("/sessions/start", Map.of(), Answers.SessionStarted.class).sessionId(), null, null,
                    null, null, null, null, null);
        }
        SignedGrant grant = issue(g, operator(c));
        // Kept before it leaves: an answer lost on the way back may hide a grant already gossiped.
        store.keepGrant(grant);
        Begun started;
        try {
            started = submit(c, grant);
        } catch (Client.Failure f) {
            if (f.exit() != 3 && f.exit() != 130) {
                store.forgetSession(grant.grant().session());
            }
            throw f;
        }
        return started.keptIn(store.grantFile(grant.grant().session()).toString());
    }

    /** Bound on waiting for a resumed session to be active before its chain is sent again: polls of {@link #POLL_MS}. */
    static final int RESUME_POLLS = 200;

    /**
     * {@code session resume}: the grant, then, once the sled has it active, every request, burn
     * and stop kept in the session's chain, in the order they were first sent (ordered-sessions.md
     * section 9). Each is gossiped again; every sled judges it as it judges any re-sent request.
     */
    static Begun resume(Client c, SessionStore store, SignedGrant grant) throws Client.Failure {
        Begun resumed = submit(c, grant);
        String id = resumed.sessionId();
        for (int i = 0; i < RESUME_POLLS && !id.equals(active(c)); i++) {
            Client.sleep(POLL_MS);
        }
        if (!id.equals(active(c))) {
            throw new Client.Failure(4, "not-active", "session " + id + " did not become active on " + c.url()
                    + " (a newer session there?): its chain was not sent again");
        }
        int requests = 0;
        int burns = 0;
        int stops = 0;
        SessionId session = grant.grant().session();
        for (ClientChain.Entry e : store.chain(session).chain().entries()) {
            if (e instanceof ClientChain.Entry.Request) {
                SignedJob j = ((ClientChain.Entry.Request) e).job();
                c.post("/jobs/" + j.request().job().codephrase() + "/start", SignedRequests.toJson(j));
                requests++;
            } else if (e instanceof ClientChain.Entry.Burn) {
                c.post("/sessions/" + id + "/skip/" + ((ClientChain.Entry.Burn) e).position()
                        .codephrase(), Map.of());
                burns++;
            } else if (e instanceof ClientChain.Entry.Stop) {
                c.post("/jobs/" + ((ClientChain.Entry.Stop) e).job().codephrase() + "/stop",
                        Map.of());
                stops++;
            } // a jump sends nothing: it carries the tip over positions the rack forgot
        }
        return resumed.sentAgain(requests, burns, stops);
    }

    /** A grant of this command's signer key for {@code starter}: a fresh epoch, a fresh client nonce. */
    static SignedGrant issue(Global g, KeyId starter) throws Client.Failure {
        SignerKey key = g.signer();
        long epoch;
        try {
            epoch = EpochFile.next(EpochFile.beside(g.signerKeyFile()), System::currentTimeMillis);
        } catch (EpochFile.EpochException e) {
            throw new Client.Failure(1, "no-epoch", "cannot issue a grant: " + e.getMessage());
        }
        byte[] nonce = new byte[Grant.NONCE_BYTES];
        new SecureRandom().nextBytes(nonce);
        return key.sign(new Grant(epoch, key.id(), starter.codephrase(), nonce));
    }

    /** Submits {@code grant}; the sled's answer (session id, epoch) and the grant's signer. */
    static Begun submit(Client c, SignedGrant grant) throws Client.Failure {
        Answers.SessionStarted r = c.post("/sessions/grant", SignedRequests.grantToJson(grant),
                Answers.SessionStarted.class);
        return new Begun(r.sessionId(), Ordering.SIGNED.wireName(), Said.number(r.epoch()),
                grant.grant().signer().codephrase(), null, null, null, null);
    }

    /** The operator key this client is logged in with: the starter every sled expects in a grant. */
    static KeyId operator(Client c) throws Client.Failure {
        if (c.credentials().identity().isEmpty()) {
            c.login();
        }
        return c.credentials().identity().orElseThrow(() -> new Client.Failure(2, "no-identity",
                "logged in, yet no identity was kept")).key();
    }

    /** The rack's session ordering as the sled says it (a sled from before orderings is causal). */
    static Ordering ordering(Client c) throws Client.Failure {
        String name = Said.text(c.get("/version", SledVersion.class).ordering(), "causal");
        try {
            return Ordering.parse(name);
        } catch (IllegalArgumentException e) {
            throw new Client.Failure(2, "bad-answer", "the sled names an unknown ordering: " + Client.printable(name));
        }
    }

    static SessionId sessionId(String phrase) throws Client.Failure {
        try {
            return SessionId.parse(phrase);
        } catch (IdException e) {
            throw new Client.Failure(2, "bad-codephrase", e.getMessage());
        }
    }

    /** Waits (bounded) until {@code id} is the active session on the client's sled. */
    static void awaitActive(Client c, String id) throws Client.Failure {
        for (int i = 0; i < MAX_POLLS && !id.equals(active(c)); i++) {
            Client.sleep(POLL_MS);
        }
    }

    /** The active session's id on the sled, or null. */
    static String active(Client c) throws Client.Failure {
        try {
            return c.get("/sessions", ActiveSession.class).sessionId();
        } catch (Client.Failure f) {
            if (f.code().equals("no-session")) {
                return null;
            }
            throw f;
        }
    }
}
