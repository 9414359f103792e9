package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/** {@code GET /jobs?limit&offset&session} and {@code sush job history} (issue 18). */
class HistoryTest extends TwoSledRack {
    @Test
    void pagesNewestFirstFiltersBySessionAndRefusesBadPaging() throws Exception {
        String first = JobTextPrivacyTest.ApiTestAccess.session();
        List<String> ids = new ArrayList<>();
        ids.add(run());
        String second = JobTextPrivacyTest.ApiTestAccess.session();
        ids.add(run());
        ids.add(run());
        Client c = rack.client(1); // any sled answers: the history is the rack's, by gossip
        JsonNode all = c.get("/jobs");
        assertEquals(3, all.get("total").asInt(), all.toString());
        JsonNode page = c.get("/jobs?limit=2");
        assertEquals(List.of(ids.get(2), ids.get(1)), jobIds(page), "newest first");
        assertEquals(second, page.get("jobs").get(0).get("session_id").asString());
        assertEquals(2, page.get("jobs").get(0).get("statuses").size(), "every sled's status");
        assertEquals(List.of(ids.get(0)), jobIds(c.get("/jobs?limit=2&offset=2")));
        assertEquals(List.of(), jobIds(c.get("/jobs?offset=3")));
        JsonNode firstOnly = c.get("/jobs?session=" + first);
        assertEquals(List.of(ids.get(0)), jobIds(firstOnly));
        assertEquals(1, firstOnly.get("total").asInt());
        for (String bad : new String[] {"limit=0", "limit=1001", "limit=x", "offset=-1", "session=not-a-phrase"}) {
            Client.Failure f = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class,
                    () -> c.get("/jobs?" + bad), bad);
            assertEquals(2, f.exit(), bad);
            assertTrue(f.code().startsWith("bad-"), bad + ": " + f.code());
        }
        assertEquals("2 stopped exit 0", sush.ops.cli.JobCommandAccess.summary(page.get("jobs").get(0)
                .get("statuses")));
    }

    private static List<String> jobIds(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.get("jobs").forEach(j -> out.add(j.get("job_id").asString()));
        return out;
    }

    /** Runs `true` on both sleds and waits for both to stop; its id. */
    private static String run() throws Exception {
        SignedJob job = JobTextPrivacyTest.ApiTestAccess.next(rack.key, "true", "*");
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        // Stopped on both sleds as sled 1 sees it; the next position is known once both sleds
        // folded this one: sled 0 sees both endings too.
        for (int via : new int[] {1, 0}) {
            await("job " + id + " did not stop on both sleds").atMost(Duration.ofSeconds(10))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25))
                    .ignoreException(Client.Failure.class).until(() -> stopped(via, id) == 2);
        }
        return id;
    }

    /** How many sleds stopped job {@code id}, as sled {@code via} knows it. */
    private static int stopped(int via, String id) throws Client.Failure {
        int stopped = 0;
        for (JsonNode s : rack.client(via).get("/jobs/" + id + "/status").get("statuses")) {
            stopped += "stopped".equals(s.path("status").asString()) ? 1 : 0;
        }
        return stopped;
    }
}
