package sush.ops.nemesis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import sush.ops.cli.Client;
import sush.ops.wire.JobPage;
import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;

/**
 * Reads what the sleds say, over the run (issue 38): each sled's own statuses of the jobs it knows
 * ({@code GET /jobs}, its claim about itself only: another sled's view of it may be derived;
 * a conflict's successors say which request it speaks of),
 * kept as every distinct claim seen, so that a status that was said and later replaced is still
 * judged against the ledger. Nothing here trusts a sled to check itself.
 */
final class Observer {
    /** One claim: sled {@code sled} said job {@code job} had status {@code status} (with its exit code, if any). */
    record Claim(String job, int sled, String status, Integer exitCode, String reason, String held, String refused) {
        String said() {
            return status + (exitCode != null ? " exit " + exitCode : "") + (reason != null ? " (" + reason + ")" : "")
                    + (refused != null ? " holding " + held + ", refusing " + refused : "");
        }
    }

    private final Sleds sleds;
    private final Workload operator;
    private final Map<String, Claim> claims = Collections.synchronizedMap(new LinkedHashMap<>());
    private int reads;
    private int failedReads;

    Observer(Sleds sleds, Workload operator) {
        this.sleds = sleds;
        this.operator = operator;
    }

    /** Asks every sled that is up and not paused for its jobs (up to 1,000 newest); a sled that fails to answer is skipped. */
    void observe() {
        for (int i = 0; i < sleds.size(); i++) {
            if (sleds.isDown(i) || sleds.isPaused(i)) {
                continue;
            }
            observe(i);
        }
    }

    /** The newest jobs sled {@code i} knows, its own status of each noted. */
    boolean observe(int i) {
        String board = sleds.entry(i).baseboard();
        try {
            Client c = operator.client(i);
            JobPage page = Json.read(c.get("/jobs?limit=1000"), JobPage.class);
            reads++;
            for (JobPage.Entry e : page.jobs()) {
                SledStatus s = e.statuses() == null ? null : e.statuses().get(board);
                if (s != null) {
                    Claim c2 = new Claim(e.jobId(), i, s.status(), s.exitCode(), s.reason() != null ? s.reason()
                            : s.error(), s.held(), s.refused());
                    claims.putIfAbsent(c2.job() + "|" + i + "|" + c2.said(), c2);
                }
            }
            return true;
        } catch (Client.Failure | RuntimeException f) {
            failedReads++;
            // A sled that restarted forgot its logins: the next read logs in again.
            operator.forget(i);
            return false;
        }
    }

    List<Claim> claims() {
        synchronized (claims) {
            return new ArrayList<>(claims.values());
        }
    }

    int reads() {
        return reads;
    }

    int failedReads() {
        return failedReads;
    }
}
