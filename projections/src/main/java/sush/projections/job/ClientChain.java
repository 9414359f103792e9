package sush.projections.job;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * A session's chain as its client keeps it (ordered-sessions.md section 9): every request it
 * signed, every burn and every stop it sent in the session, in order. The client is the chain's
 * author: it signs each next job at the position after the newest one it can prove (its kept
 * chain, extended by the requests and burns sleds hold after its tip), never at a position a
 * sled merely names; and {@code session resume} re-submits what it keeps, in order. Pure: the
 * CLI keeps it in a file, the simulator in memory, and both call this code.
 */
public final class ClientChain {
    /** Bound on the entries of one session's kept chain (a session's chain holds at most 65,536 positions). */
    public static final int MAX_ENTRIES = 65_536;

    /** One thing the client sent in the session. */
    public sealed interface Entry {
        /** A signed request at its position. */
        record Request(SignedJob job) implements Entry {
        }

        /** A burn of a position (the starter's skip). */
        record Burn(JobId position) implements Entry {
        }

        /** A stop of a job (the starter's stop): kept so that a cold boot cannot lose it. */
        record Stop(JobId job) implements Entry {
        }

        /**
         * The rack settled and forgot the chain from {@code from} on (bounded-gossip.md section 3):
         * its live chain goes on at {@code to}, as the sleds asked said. Nothing is sent for it on
         * a resume; it only carries the tip over positions no sled holds any more.
         */
        record Jump(JobId from, JobId to) implements Entry {
        }
    }

    /** Two requests at one position: the chain forked, and the client must not guess. */
    public static final class Fork extends Exception {
        private static final long serialVersionUID = 1L;

        Fork(JobId position, Entry one, Entry other) {
            super("the chain forked at " + position.codephrase() + ": " + describe(one) + " and " + describe(other)
                    + " both claim it; no job is placed until the operator decides (start a new session, or burn it)");
        }

        private static String describe(Entry e) {
            if (e instanceof Entry.Jump) {
                return "a jump to " + ((Entry.Jump) e).to().codephrase();
            }
            return e instanceof Entry.Request ? "request " + HexFormat.of().formatHex(((Entry.Request) e).job().request()
                    .digest()) : "a burn";
        }
    }

    private final SessionId session;
    private final List<Entry> entries = new ArrayList<>();
    private final Map<JobId, SignedJob> requests = new HashMap<>();
    /**
     * Each kept request's successor, by its position: a successor is a hash of the request, and
     * the tip is walked from the session's first position on every job placed (in the simulator's
     * long runs, hashing the kept chain over and over was half of all the time).
     */
    private final Map<JobId, JobId> successors = new HashMap<>();
    private final Set<JobId> burns = new HashSet<>();
    private final Map<JobId, JobId> jumps = new HashMap<>();
    /**
     * The tip as last walked, or null: a request kept at the tip moves it on from there; anything
     * else (a burn may reroute the walk) has it walked again from the first position. Walked from
     * the first position on every job placed, a session of 65,536 jobs cost 2 billion steps.
     */
    private JobId tip;

    public ClientChain(SessionId session) {
        this.session = session;
    }

    /** A kept chain read back: every entry is checked as it would have been when kept. */
    public static ClientChain of(SessionId session, List<Entry> entries) {
        ClientChain c = new ClientChain(session);
        for (Entry e : entries) {
            c.add(e);
        }
        return c;
    }

    public SessionId session() {
        return session;
    }

    /** Everything kept, in the order it was sent. */
    public List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** The request kept at {@code position}, if any. */
    public Optional<SignedJob> request(JobId position) {
        return Optional.ofNullable(requests.get(position));
    }

    /**
     * The next free position: from the session's first, over kept burns (a burn wins, as on a
     * sled) and kept requests, to the first position the kept chain does not fill.
     */
    public JobId tip() {
        if (tip == null) {
            tip = walk(successors, burns, jumps, Chain.first(session));
        }
        return tip;
    }

    /** Keeps {@code job}, which must stand at the tip: a position names one request. */
    public void keep(SignedJob job) {
        JobRequest r = job.request();
        if (!r.session().equals(session)) {
            throw new IllegalArgumentException("request of session " + r.session().codephrase() + " kept in "
                    + session.codephrase());
        }
        if (!r.job().equals(tip())) {
            throw new IllegalArgumentException("request at " + r.job().codephrase() + ", not at the kept chain's tip "
                    + tip().codephrase());
        }
        add(new Entry.Request(job));
    }

    /** Keeps a burn of {@code position}. */
    public void keepBurn(JobId position) {
        add(new Entry.Burn(position));
    }

    /** Keeps a stop of {@code job}. */
    public void keepStop(JobId job) {
        add(new Entry.Stop(job));
    }

    /** Drops what was kept at {@code position} by the last entry (the sled refused it: it never left). */
    public void forgetLast() {
        if (entries.isEmpty()) {
            return;
        }
        Entry last = entries.remove(entries.size() - 1);
        tip = null;
        if (last instanceof Entry.Request) {
            requests.remove(((Entry.Request) last).job().request().job());
            successors.remove(((Entry.Request) last).job().request().job());
        } else if (last instanceof Entry.Burn && !entries.contains(last)) {
            burns.remove(((Entry.Burn) last).position());
        } else if (last instanceof Entry.Jump && !entries.contains(last)) {
            jumps.remove(((Entry.Jump) last).from());
        }
    }

    private void add(Entry e) {
        if (entries.size() >= MAX_ENTRIES) {
            throw new IllegalStateException("a kept chain holds at most " + MAX_ENTRIES + " entries: start a new session");
        }
        if (e instanceof Entry.Request) {
            SignedJob j = ((Entry.Request) e).job();
            if (!j.request().session().equals(session)) {
                throw new IllegalArgumentException("request of another session in the chain of " + session.codephrase());
            }
            SignedJob old = requests.putIfAbsent(j.request().job(), j);
            if (old == null) {
                successors.put(j.request().job(), j.request().successor());
                tip = j.request().job().equals(tip) ? walk(successors, burns, jumps, j.request().successor()) : null;
            } else if (!same(old, j)) {
                throw new IllegalArgumentException("two requests kept at " + j.request().job().codephrase());
            }
        } else if (e instanceof Entry.Burn) {
            burns.add(((Entry.Burn) e).position());
            tip = null;
        } else if (e instanceof Entry.Jump) {
            tip = null;
            Entry.Jump j = (Entry.Jump) e;
            JobId old = jumps.putIfAbsent(j.from(), j.to());
            if (old != null && !old.equals(j.to())) {
                throw new IllegalArgumentException("two jumps kept from " + j.from().codephrase());
            }
        }
        entries.add(e);
    }

    /**
     * Keeps what sleds hold after the tip (requests another client of the session signed, burns
     * it sent), asked of one sled or of all of them: the union of what they hold is followed from
     * the tip, so the longest chain that extends the kept one is kept (a sled that lags holds a
     * prefix of it). Two requests at one position, from two sleds or from a sled and the kept
     * chain, are a fork: the client never guesses which one the rack runs. A position no sled
     * holds any more, which a sled says the rack forgot (a jump), is passed to where the live
     * chain goes on; a position some sled still holds is followed as held, and two sleds naming
     * two places to go on from one position are a fork too. Returns how many entries were added.
     */
    public int extend(Collection<Held> sleds) throws Fork {
        // What the sleds hold beside the kept chain (the kept chain is looked up, never copied:
        // copied on every job placed, a long session cost as much as its length each time).
        Map<JobId, SignedJob> theirs = new HashMap<>();
        Set<JobId> burnt = new HashSet<>();
        Map<JobId, JobId> jumped = new HashMap<>();
        for (Held h : sleds) {
            for (SignedJob job : h.requests().values()) {
                if (!job.request().session().equals(session)) {
                    continue;
                }
                SignedJob known = requests.get(job.request().job());
                if (known == null) {
                    known = theirs.putIfAbsent(job.request().job(), job);
                }
                if (known != null && !same(known, job)) {
                    throw new Fork(job.request().job(), new Entry.Request(known), new Entry.Request(job));
                }
            }
            burnt.addAll(h.burns());
            for (Map.Entry<JobId, JobId> j : h.jumps().entrySet()) {
                JobId known = jumps.get(j.getKey());
                if (known == null) {
                    known = jumped.putIfAbsent(j.getKey(), j.getValue());
                }
                if (known != null && !known.equals(j.getValue())) {
                    throw new Fork(j.getKey(), new Entry.Jump(j.getKey(), known), new Entry.Jump(j.getKey(), j.getValue()));
                }
            }
        }
        int added = 0;
        JobId at = tip();
        Set<JobId> seen = new HashSet<>();
        while (seen.add(at) && entries.size() < MAX_ENTRIES) {
            SignedJob j = requests.containsKey(at) ? requests.get(at) : theirs.get(at);
            JobId jump = jumps.containsKey(at) ? jumps.get(at) : jumped.get(at);
            if (burns.contains(at) || burnt.contains(at)) {
                add(new Entry.Burn(at));
                at = Chain.afterBurn(at);
            } else if (j != null) {
                add(new Entry.Request(j));
                at = j.request().successor();
            } else if (jump != null) {
                add(new Entry.Jump(at, jump));
                at = jump;
            } else {
                break;
            }
            added++;
        }
        return added;
    }

    /**
     * What one sled holds of the session's chain: requests by position, burnt positions, and
     * where the live chain goes on from a position the rack forgot ({@code jumps}).
     */
    public record Held(Map<JobId, SignedJob> requests, Set<JobId> burns, Map<JobId, JobId> jumps) {
        public Held {
            requests = Map.copyOf(requests);
            burns = Set.copyOf(burns);
            jumps = Map.copyOf(jumps);
        }

        public Held(Map<JobId, SignedJob> requests, Set<JobId> burns) {
            this(requests, burns, Map.of());
        }

        /** From a list of requests and burns. */
        public static Held of(Collection<SignedJob> requests, Collection<JobId> burns) {
            Map<JobId, SignedJob> byPosition = new HashMap<>();
            for (SignedJob j : requests) {
                byPosition.putIfAbsent(j.request().job(), j);
            }
            return new Held(byPosition, new HashSet<>(burns));
        }
    }

    /** Whether two requests are one: equal fields (quick), or, as a sled decides, equal digests. */
    private static boolean same(SignedJob a, SignedJob b) {
        return a.request().equals(b.request()) || Arrays.equals(a.request().digest(), b.request().digest());
    }

    private static JobId walk(Map<JobId, JobId> successors, Set<JobId> burns, Map<JobId, JobId> jumps, JobId from) {
        JobId at = from;
        for (int steps = 0; steps <= successors.size() + burns.size() + jumps.size(); steps++) {
            if (burns.contains(at)) {
                at = Chain.afterBurn(at);
            } else if (successors.containsKey(at)) {
                at = successors.get(at);
            } else if (jumps.containsKey(at)) {
                at = jumps.get(at);
            } else {
                return at;
            }
        }
        return at;
    }
}
