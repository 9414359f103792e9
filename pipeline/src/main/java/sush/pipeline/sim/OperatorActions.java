package sush.pipeline.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import sush.pipeline.sim.Simulation.Client;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.Ordering;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.ClientChain;
import sush.projections.job.Grant;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import sush.projections.job.JobRequest;
import sush.projections.job.JobWave;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * What the simulated operator does through its client: starts sessions (a sled's start in the
 * causal ordering, a signed grant in the signed one), signs and submits jobs where its client
 * places them, burns and stops, re-sends, and runs {@code session resume}. Each request goes
 * through one sled as its API would; what the client keeps is in the {@link Operator}.
 */
final class OperatorActions {
    private final SimRack rack;
    private final Operator operator;
    private final SimSigner signer;
    private final SignerKey key;
    /** How the client places jobs and resumes sessions. */
    Client client = Client.KEPT_CHAIN;

    OperatorActions(SimRack rack, Operator operator, SimSigner signer, SignerKey key) {
        this.rack = rack;
        this.operator = operator;
        this.signer = signer;
        this.key = key;
    }

    /**
     * Signed ordering: after a whole-rack cold boot the operator runs {@code session resume}
     * through {@code via}: the client re-submits the current grant and its kept chain.
     */
    void resumeAfterColdBoot(int via) {
        if (rack.ordering == Ordering.SIGNED && operator.grant != null) {
            rack.advance(1_000);
            rack.faults.add("session-resume");
            resume(rack.sleds.get(via), operator.session);
        }
    }

    /**
     * {@code session resume} of {@code session} through {@code via}, as the client does it: its
     * grant (signed ordering), then every request, burn and stop it kept, in order. The client
     * of before issue 34 re-submitted the grant alone.
     */
    void resume(SimSled via, SessionId session) {
        SignedGrant g = operator.grants.get(session);
        if (g != null) {
            send(via, new Message.SessionGrant(g));
        }
        if (client == Client.SLED_NEXT_JOB || !operator.chains.containsKey(session)) {
            return;
        }
        for (ClientChain.Entry e : operator.chains.get(session).entries()) {
            if (e instanceof ClientChain.Entry.Request) {
                send(via, new Message.JobStart(((ClientChain.Entry.Request) e).job()));
            } else if (e instanceof ClientChain.Entry.Burn) {
                send(via, new Message.JobSkip(session, ((ClientChain.Entry.Burn) e).position(), operator.starter));
            } else if (e instanceof ClientChain.Entry.Stop) {
                send(via, new Message.JobStop(((ClientChain.Entry.Stop) e).job(), operator.starter));
            } // a jump sends nothing: it only carries the tip over what the rack forgot
        }
    }

    /** Does what an operator's step says: sessions, signer faults and replays here, jobs, burns and stops below. */
    void operate(Step step) {
        if (step instanceof Step.StartSession && rack.ordering == Ordering.SIGNED) {
            grantSession(rack.sleds.get(((Step.StartSession) step).via()));
        } else if (step instanceof Step.StartSession) {
            startSession(rack.sleds.get(((Step.StartSession) step).via()));
        } else if (operator.session == null) {
            rack.trace.add("  (no session yet: nothing to do)");
        } else if (step instanceof Step.SignerClockBack) {
            if (rack.ordering == Ordering.SIGNED) {
                rack.faults.add("signer-clock-back");
                signer.nextClockBack = ((Step.SignerClockBack) step).millis();
            }
        } else if (step instanceof Step.SignerReusesEpoch) {
            if (rack.ordering == Ordering.SIGNED) {
                rack.faults.add("epoch-reuse");
                signer.nextReuse = true;
            }
        } else if (step instanceof Step.ReplayStart && rack.ordering == Ordering.SIGNED) {
            replayGrant((Step.ReplayStart) step);
        } else if (step instanceof Step.ReplayStart) {
            replayStart((Step.ReplayStart) step);
        } else {
            operateInSession(step);
        }
    }

    /** Signed ordering: a session is a grant the signer signs, sent through {@code via}. */
    private void grantSession(SimSled via) {
        boolean back = signer.clockBack && operator.sessions % 5 == 4;
        if (back) {
            rack.faults.add("signer-clock-back");
        }
        byte[] clientNonce = new byte[Grant.NONCE_BYTES];
        clientNonce[0] = (byte) operator.sessions;
        clientNonce[1] = (byte) (rack.seed & 0xff);
        operator.sessions++;
        SignedGrant g = key.sign(new Grant(signer.nextEpoch(back), key.id(), operator.starter, clientNonce));
        if (send(via, new Message.SessionGrant(g))) {
            SessionId id = g.grant().session();
            if (operator.firstGrant == null) {
                operator.firstGrant = g;
            }
            operator.grant = g;
            operator.grants.put(id, g);
            operator.start = null;
            begin(id);
        }
    }

    /** Causal ordering: a session start with a nonce from {@code via}, sent through it. */
    private void startSession(SimSled via) {
        byte[] sledNonce = new byte[SessionIds.NONCE_BYTES];
        rack.entropy(via, via.life, 100 + operator.sessions).nextBytes(sledNonce);
        byte[] clientNonce = {(byte) operator.sessions, (byte) (rack.seed & 0xff)};
        operator.sessions++;
        SessionId id = SessionIds.compute(via.sled.baseboard(), sledNonce, clientNonce);
        Message.SessionStart start = new Message.SessionStart(id, via.sled.baseboard(), sledNonce, clientNonce,
                operator.starter);
        if (send(via, start)) {
            if (operator.firstStart == null) {
                operator.firstStart = start;
            }
            operator.start = start;
            begin(id);
        }
    }

    /**
     * Ordinary in the signed ordering: the first grant again, with its place in the order; the
     * client goes back to that session's kept chain.
     */
    private void replayGrant(Step.ReplayStart step) {
        rack.faults.add("replayed-grant");
        if (operator.firstGrant != null) {
            send(rack.sleds.get(step.via()), new Message.SessionGrant(operator.firstGrant));
            operator.grant = operator.firstGrant;
            operator.session = operator.firstGrant.grant().session();
            operator.strayBurns = false;
        }
    }

    /**
     * Forbidden in the causal ordering: the run's first session comes back, re-sent by a client
     * that believes it still stands.
     */
    private void replayStart(Step.ReplayStart step) {
        rack.faults.add("replayed-start (forbidden)");
        if (operator.firstStart != null) {
            send(rack.sleds.get(step.via()), operator.firstStart);
            operator.session = operator.firstStart.session();
            operator.start = operator.firstStart;
            operator.strayBurns = false;
        }
    }

    /** The steps that act in the current session: submits, re-sends, burns and stops. */
    private void operateInSession(Step step) {
        if (step instanceof Step.Submit) {
            Step.Submit s = (Step.Submit) step;
            submit(rack.sleds.get(s.via()), s.target(), s.concurrent());
        } else if (step instanceof Step.Resend) {
            Step.Resend r = (Step.Resend) step;
            List<SignedJob> jobs = operator.jobs();
            if (!jobs.isEmpty()) {
                rack.faults.add("resend");
                send(rack.sleds.get(r.via()), new Message.JobStart(jobs.get(r.index() % jobs.size())));
            }
        } else if (step instanceof Step.StopSession) {
            rack.faults.add("session-stop");
            if (send(rack.sleds.get(((Step.StopSession) step).via()), new Message.SessionStop(operator.session,
                    operator.starter))) {
                operator.stopped.add(operator.session);
            }
        } else if (step instanceof Step.Skip) {
            rack.faults.add("burn");
            SimSled via = rack.sleds.get(((Step.Skip) step).via());
            Optional<JobId> next = placement(via);
            if (next.isPresent()) {
                burn(via, next.get());
            }
        } else if (step instanceof Step.Burn) {
            burnAny((Step.Burn) step);
        } else if (step instanceof Step.ResendBurn) {
            Step.ResendBurn r = (Step.ResendBurn) step;
            if (!operator.allBurns.isEmpty()) {
                rack.faults.add("resent-burn");
                Message.JobSkip burn = operator.allBurns.get(r.index() % operator.allBurns.size());
                operator.strayBurns |= burn.session().equals(operator.session);
                operator.strayBurnsEver = true;
                operator.forked.add(burn.session());
                send(rack.sleds.get(r.via()), burn);
            }
        } else if (step instanceof Step.StopJob) {
            Step.StopJob st = (Step.StopJob) step;
            List<SignedJob> jobs = operator.jobs();
            if (!jobs.isEmpty()) {
                rack.faults.add("job-stop");
                stop(rack.sleds.get(st.via()), jobs.get(st.index() % jobs.size()).request().job());
            }
        } else if (step instanceof Step.StopNewest) {
            List<SignedJob> jobs = operator.jobs();
            if (!jobs.isEmpty()) {
                rack.faults.add("job-stop-newest");
                stop(rack.sleds.get(((Step.StopNewest) step).via()), jobs.get(jobs.size() - 1).request().job());
            }
        }
    }

    /** Any position: the first, or a signed job's (maybe behind some heads, maybe running). */
    private void burnAny(Step.Burn b) {
        List<SignedJob> jobs = operator.jobs();
        int pick = b.pick() % (jobs.size() + 1);
        JobId position = pick == 0 ? Chain.first(operator.session)
                : jobs.get(pick - 1).request().job();
        rack.faults.add("burn-any");
        JobId tip = operator.chains.get(operator.session).tip();
        if (burn(rack.sleds.get(b.via()), position)) {
            operator.strayBurns |= !position.equals(tip);
            operator.strayBurnsEver |= operator.strayBurns;
            if (!position.equals(tip)) {
                operator.forked.add(operator.session);
            }
        }
    }

    /**
     * Where the client places the session's next job (or burn of the next position), asked
     * through {@code via}: the kept chain's tip once extended by what that sled holds after it;
     * before issue 34, the {@code next_job} the sled names. Empty when the client cannot tell
     * (the sled is down, holds another session, or the chain forked).
     */
    private Optional<JobId> placement(SimSled via) {
        if (!via.up) {
            rack.trace.add("  " + via.name() + " is down: the request fails");
            return Optional.empty();
        }
        SledRuntime.View v = rack.liveView(via);
        Optional<ChainProjection> chain = v == null ? Optional.empty()
                : v.fold().activeSession().filter(a -> a.id().equals(operator.session)).flatMap(a -> v.fold().chain());
        if (client == Client.SLED_NEXT_JOB) {
            if (chain.isEmpty()) {
                rack.trace.add("  " + via.name() + " has no such active session: the client cannot place the job");
            }
            return chain.map(ChainProjection::nextFree);
        }
        ClientChain kept = operator.chains.get(operator.session);
        try {
            if (chain.isPresent()) {
                int added = kept.extend(List.of(ClientChain.Held.of(chain.get().heldRequests(),
                        chain.get().heldBurns())));
                if (added > 0) {
                    rack.trace.add("  the client's chain extended by " + added + " from " + via.name());
                }
            }
        } catch (ClientChain.Fork f) {
            rack.trace.add("  " + f.getMessage());
            return Optional.empty();
        }
        return Optional.of(kept.tip());
    }

    /** Signs the session's next job for {@code target} and submits it through {@code via}. */
    void submit(SimSled via, String target, boolean concurrent) {
        Optional<JobId> at = placement(via);
        if (at.isEmpty()) {
            return;
        }
        JobWave wave = rack.waves == null ? JobWave.NONE : rack.waves.waveFor(target);
        String signedTarget = wave.isSet() ? rack.waves.cubbies(target) : target;
        JobRequest r = new JobRequest(operator.session, at.get(), "job-" + operator.commands++, signedTarget,
                concurrent, JobLimits.NONE, JobMode.RECORDED, wave);
        SignedJob job = key.sign(r);

        ClientChain kept = operator.chains.get(operator.session);
        if (client == Client.KEPT_CHAIN) {
            kept.keep(job); // kept before it leaves: an answer lost on the way may hide a request gossiped
        }
        rack.jobIndex.note(r.job());
        if (wave.isSet()) {
            // Before it leaves (sleds may act on it inside the send); dropped if it never left (the
            // next request takes its position).
            rack.waves.signed(job);
        }
        if (send(via, new Message.JobStart(job))) {
            if (wave.isSet()) {
                rack.trace.add("  " + r.job().codephrase() + " in waves of " + wave.size() + ", budget "
                        + wave.maxFailures() + ", on " + signedTarget + ", failing on " + rack.waves.failingOn(r.job()));
            }
            // A request that left names its position for good (one refused at once never left).
            SignedJob before = operator.signedAt.putIfAbsent(r.job(), job);
            if (before != null && !Arrays.equals(before.request().digest(), r.digest())) {
                operator.clientViolations.add("a position names two requests: " + r.job().codephrase() + " holds "
                        + before.request().command() + " and " + r.command());
            }
            List<SignedJob> jobs = operator.signed.computeIfAbsent(operator.session, k -> new ArrayList<>());
            // The session's place among those the operator started (a replayed one keeps its own).
            operator.positions.putIfAbsent(r.job(),
                    new int[] {operator.all.indexOf(operator.session) + 1, jobs.size()});
            jobs.add(job);
            operator.allJobs.add(job);
        } else {
            if (wave.isSet()) {
                rack.waves.unsigned(r.job());
            }
            if (client == Client.KEPT_CHAIN) {
                kept.forgetLast(); // refused: it never left
            }
        }
    }

    /** Burns {@code position} of the current session through {@code via}; the client keeps the burn. */
    private boolean burn(SimSled via, JobId position) {
        Message.JobSkip burn = new Message.JobSkip(operator.session, position, operator.starter);
        ClientChain kept = operator.chains.get(operator.session);
        kept.keepBurn(position);
        if (send(via, burn)) {
            operator.allBurns.add(burn);
            return true;
        }
        kept.forgetLast();
        return false;
    }

    /** The starter stops {@code job} through {@code via}; the client keeps the stop, and the job never ends by itself. */
    private void stop(SimSled via, JobId job) {
        ClientChain kept = operator.chains.get(operator.session);
        kept.keepStop(job);
        if (send(via, new Message.JobStop(job, operator.starter))) {
            operator.stoppedJobs.add(job);
        } else {
            kept.forgetLast();
        }
    }

    /** The operator's client now works in the new session {@code id}, from its first position. */
    private void begin(SessionId id) {
        operator.session = id;
        operator.all.add(id);
        operator.chains.putIfAbsent(id, new ClientChain(id));
        operator.strayBurns = false;
    }

    /** Sends through a sled as its API would; false (the client sees an error) if it cannot. */
    boolean send(SimSled via, Message m) {
        if (!via.up) {
            rack.trace.add("  " + via.name() + " is down: the request fails");
            return false;
        }
        try {
            via.node.send(MessageCodec.encode(m));
            return true;
        } catch (RuntimeException e) {
            rack.trace.add("  " + via.name() + " refused the request: " + e.getMessage());
            return false;
        }
    }
}
