package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.wire.Json;
import sush.projections.fold.Ordering;
import tools.jackson.databind.JsonNode;

/**
 * Issue 40 through real daemons as an operator runs them: a signed 4-sled rack, a job started with
 * {@code --wave-size 1 --max-failures 0} on every sled that fails on cubby 1. Cubby 0 runs it,
 * cubby 1 fails, cubbies 2 and 3 never start it ({@code Skipped{BudgetSpent}}) and {@code --wait}
 * exits 5. Then a sled that is down holds the next wave: {@code job status} names the cubby
 * awaited, and {@code job skip --sled} lets the later wave run.
 */
class WavesDaemonTest extends ClientRack {
    private static final int SLEDS = 4;

    private Path ledger;

    private void startRack() throws Exception {
        rack = RackCommand.create(dir, SLEDS, LocalRack.freePorts(SLEDS), Ordering.SIGNED);
        ledger = dir.resolve("ran.txt");
        for (int i = 0; i < SLEDS; i++) {
            processes.add(RackAccess.start(dir, rack.sleds().get(i), List.of(), List.of()));
        }
        for (int i = 0; i < SLEDS; i++) {
            assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
        }
        await("one universe", () -> oneUniverse(SLEDS));
    }

    /** A command that records where it ran, and fails (exit 3) on the sled in cubby {@code failing}. */
    private String command(int failing) {
        return "echo \"$SUSH_JOB_ID $SUSH_JOB_OUTPUT_DIR\" >> " + ledger + "; case \"$SUSH_JOB_OUTPUT_DIR\" in *sled"
                + String.format("%02d", failing) + "*) exit 3;; esac; echo ok";
    }

    /** The sleds (their directories' names) that ran {@code job}, as the ledger says. */
    private List<String> ranOn(String job) throws Exception {
        if (!Files.exists(ledger)) {
            return List.of();
        }
        return Files.readAllLines(ledger).stream().filter(l -> l.startsWith(job + " ")).map(l -> l.replaceAll(
                ".*(sled0[0-9]).*", "$1")).sorted().toList();
    }

    private Map<String, JsonNode> statusNodes(int via, String job) throws Client.Failure {
        Map<String, JsonNode> out = new java.util.TreeMap<>();
        client(via).get("/jobs/" + job + "/status").get("statuses").properties()
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /**
     * Issue 40's receipts: the sleds signed a commit and an ending (cubbies 0 and 1) or a refusal
     * (2 and 3); the session's bundle verifies offline against the rack CA and the signer key,
     * and no longer once one byte of one receipt is flipped.
     */
    private void receipts(String job) throws Exception {
        await("every sled's receipts of " + job, () -> {
            CliRun r = cli(0, "job", "status", "--receipts", job);
            return r.out().split("kind=").length - 1 == 6;
        });
        CliRun shown = cli(0, "job", "status", "--receipts", job);
        assertTrue(shown.out().contains("kind=commit") && shown.out().contains("kind=refuse reason=budget-spent")
                || shown.out().contains("kind=refuse"), shown.out());
        Path bundle = dir.resolve("audit.json");
        CliRun export = cli(0, "audit", "export", "-o", bundle.toString());
        assertEquals(0, export.exit(), export.out() + export.err());
        String[] verify = {"audit", "verify", "--ca", dir.resolve("ca.crt").toString(), "--trust",
            dir.resolve("signer.pub").toString(), bundle.toString()};
        CliRun ok = CliRun.of(verify);
        assertEquals(0, ok.exit(), ok.out() + ok.err());
        assertTrue(ok.out().contains("seq ") && ok.out().contains("stopped exit 3"), ok.out());
        // One byte of one receipt flipped: the signature no longer matches, and the check says which.
        String text = Files.readString(bundle);
        int at = text.indexOf("exit_code=3");
        Files.writeString(bundle, text.substring(0, at) + "exit_code=0" + text.substring(at + "exit_code=3".length()));
        CliRun altered = CliRun.of(verify);
        assertEquals(7, altered.exit(), altered.out() + altered.err());
        assertTrue(altered.out().contains("the signature does not match (altered)"), altered.out());
    }

    @Test
    void aWaveOfOneWithNoBudgetStopsAtTheFirstFailureAndASkippedSledReleasesTheNextWave() throws Exception {
        startRack();
        // The dry run first: every sled would run it, in its wave; nothing is signed or sent.
        CliRun plan = cli(1, "job", "plan", "--wave-size", "2");
        assertEquals(0, plan.exit(), plan.out() + plan.err());
        assertTrue(plan.out().contains("waves of 2, budget 0: [0, 1] [2, 3]"), plan.out());
        assertTrue(plan.out().contains(sled(3) + "  run in wave 1"), plan.out());
        CliRun typo = cli(1, "job", "plan", "--target", "913-0000019:NOSUCH");
        assertEquals(2, typo.exit(), typo.out() + typo.err());
        assertTrue(typo.err().contains("unknown-sled"), typo.err());
        CliRun nobody = cli(1, "job", "plan", "--yes", "--target", "913-0000019:NOSUCH");
        assertEquals(5, nobody.exit(), "no sled would run it: " + nobody.out());
        assertTrue(nobody.out().contains("not-targeted"), nobody.out());
        CliRun run = cli(0, "job", "start", "--json", "--wait", "--wave-size", "1", "--max-failures", "0", "--",
                command(1));
        assertEquals(5, run.exit(), "--wait exits 5 when the budget was spent: " + run.out() + run.err());
        String job = Json.MAPPER.readTree(run.lastLine()).get("job_id").asString();
        assertEquals(List.of("sled00", "sled01"), ranOn(job), "cubby 0 ran, cubby 1 failed, the rest never started");
        Map<String, JsonNode> s = statusNodes(0, job);
        assertEquals(0, s.get(sled(0)).get("exit_code").asInt());
        assertEquals(3, s.get(sled(1)).get("exit_code").asInt());
        for (int i = 2; i < SLEDS; i++) {
            assertEquals("skipped", s.get(sled(i)).get("status").asString());
            assertEquals("budget-spent", s.get(sled(i)).get("reason").asString());
            assertTrue(s.get(sled(i)).get("detail").asString().contains("cubbies [1]"), s.get(sled(i)).toString());
        }
        JsonNode listed = null;
        for (JsonNode j : client(0).get("/jobs?limit=10").get("jobs")) {
            listed = j.get("job_id").asString().equals(job) ? j : listed;
        }
        assertTrue(listed != null && listed.get("waves").get("spent").asBoolean(), "the page's list shows the waves: "
                + listed);
        CliRun status = cli(2, "job", "status", job);
        assertEquals(5, status.exit());
        assertTrue(status.out().contains("budget spent"), status.out());
        receipts(job);

        // A sled that never reports holds the later waves until its part is skipped.
        processes.get(2).descendants().forEach(ProcessHandle::destroyForcibly);
        processes.get(2).destroyForcibly().waitFor();
        CliRun second = cli(0, "job", "start", "--json", "--target", "2,3", "--wave-size", "1", "--", command(9));
        assertEquals(0, second.exit(), second.out() + second.err());
        String held = Json.MAPPER.readTree(second.lastLine()).get("job_id").asString();
        await("sled 3 says it awaits cubby 2", () -> {
            CliRun r = cli(3, "job", "status", held);
            return r.out().contains("wave 0 awaits cubbies [2]");
        });
        Thread.sleep(1_000);
        assertEquals(List.of(), ranOn(held), "cubby 3 waits for cubby 2");
        CliRun waiting = cli(0, "job", "plan", "--target", "0,1,3");
        assertEquals(5, waiting.exit(), waiting.out() + waiting.err());
        assertTrue(waiting.out().contains(sled(3) + "  wait: earlier jobs first: the head stands at " + held),
                waiting.out());
        assertTrue(waiting.out().contains(sled(2) + "  unreachable"), waiting.out());
        assertTrue(waiting.out().contains(sled(0) + "  run"), waiting.out());
        CliRun skip = cli(0, "job", "skip", "--sled", "2", held);
        assertEquals(0, skip.exit(), skip.out() + skip.err());
        await("cubby 3 ran it once cubby 2's part was skipped", () -> "stopped".equals(statuses(0, held).get(sled(3))));
        assertEquals(List.of("sled03"), ranOn(held));
    }
}
