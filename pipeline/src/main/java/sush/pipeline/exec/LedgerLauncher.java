package sush.pipeline.exec;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;

/**
 * A launcher that runs nothing: it records each launch in a ledger shared by the sleds of a
 * simulation or test, and ends jobs when told. What the safety checker reads.
 */
public final class LedgerLauncher implements Launcher {
    /** One launch: which sled launched which job. */
    public record Launch(String sled, JobId job) {
    }

    private final String sled;
    private final List<Launch> ledger;
    private final Map<JobId, Sinks.One<Ending>> running = new ConcurrentHashMap<>();
    private final boolean endAtOnce;

    /**
     * @param ledger shared by every sled of the rack
     * @param endAtOnce whether every job ends at once with exit 0 (else {@link #end} ends it)
     */
    public LedgerLauncher(String sled, List<Launch> ledger, boolean endAtOnce) {
        this.sled = sled;
        this.ledger = ledger;
        this.endAtOnce = endAtOnce;
    }

    public static List<Launch> newLedger() {
        return Collections.synchronizedList(new ArrayList<>());
    }

    @Override
    public Running launch(LaunchRequest r) {
        ledger.add(new Launch(sled, r.job()));
        Sinks.One<Ending> ending = Sinks.one();
        running.put(r.job(), ending);
        if (endAtOnce) {
            end(r.job(), 0);
        }
        return new Running() {
            @Override
            public JobId job() {
                return r.job();
            }

            @Override
            public Mono<Ending> ending() {
                return ending.asMono();
            }

            @Override
            public void stop() {
                Sinks.One<Ending> s = running.remove(r.job());
                if (s != null) {
                    s.tryEmitValue(new Ending.Killed(15, Ending.Cause.STOP, empty()));
                }
            }
        };
    }

    /** Ends a running job with {@code code}; false if it is not running. */
    public boolean end(JobId job, int code) {
        Sinks.One<Ending> s = running.remove(job);
        return s != null && s.tryEmitValue(new Ending.Exited(code, empty())).isSuccess();
    }

    /** The jobs running now. */
    public java.util.Set<JobId> running() {
        return java.util.Set.copyOf(running.keySet());
    }

    public boolean isRunning(JobId job) {
        return running.containsKey(job);
    }

    private static Output empty() {
        byte[] none = Hashes.sha3Raw(new byte[0]);
        return new Output(0, none, 0, none);
    }
}
