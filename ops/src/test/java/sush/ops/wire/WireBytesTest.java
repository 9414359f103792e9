package sush.ops.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static sush.gossip.clock.Version.ZERO;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import sush.gossip.set.NetworkId;
import sush.locker.admission.FloorCause;
import sush.locker.record.Bloom;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.locker.record.Left;
import sush.locker.record.Outcome;
import sush.locker.record.SignedCommitted;
import sush.locker.record.SignedRecord;
import sush.ops.api.WireAccess;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.JobStatus;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionRank;
import sush.projections.job.Grant;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * The API's JSON bytes, pinned (issue 37): representative response bodies built from fixed
 * inputs the way the API builds them, compared as exact strings (field order, absent fields,
 * explicit nulls and number forms included), so that a change of how bodies are built cannot
 * change what a client reads.
 */
class WireBytesTest {
    private static final String A = "913-0000019:A";
    private static final String B = "913-0000019:B";

    private static byte[] bytes(int n, int fill) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    private static JobId job(int fill) {
        return new JobId(bytes(11, fill));
    }

    private static SessionId sessionId(int fill) {
        return new SessionId(bytes(11, fill));
    }

    private static KeyId key(int fill) {
        return new KeyId(bytes(11, fill));
    }

    private static final JobId J = job(1);
    private static final JobId NEXT = job(2);
    private static final SessionId S = sessionId(3);
    /** The codephrases of {@link #J}, {@link #NEXT}, {@link #S} and {@code key(8)}. */
    private static final String JP = "absurd-amount-doctor-acoustic-avoid-letter-advice-cage";
    private static final String NP = "acoustic-avoid-letter-advice-cage-absurd-amount-doctor";
    private static final String SP = "adapt-blossom-school-alcohol-coral-light-army-gather";
    private static final String KP = "amount-doctor-acoustic-avoid-letter-advice-cage-absurd";
    /** The fields of {@link #stopped()}'s status. */
    private static final String STOPPED_FIELDS = "\"status\":\"stopped\",\"exit_code\":0,\"stdout_bytes\":6,"
            + "\"stdout_sha3\":\"" + "1".repeat(64) + "\",\"stderr_bytes\":0,\"stderr_sha3\":\"" + "2".repeat(64)
            + "\",\"sled_started_at\":\"2023-11-14T22:13:20Z\",\"sled_ended_at\":\"2023-11-14T22:13:21.500Z\","
            + "\"duration_ms\":1500";
    /** This build's version and commit as {@code /version} names them. */
    private static final String VERSION_FIELDS = "\"version\":\"" + Version.VERSION + "\",\"commit\":\""
            + Version.COMMIT + "\"";

    private static Message.JobStopped stopped() {
        return new Message.JobStopped(A, J, 0, null, 6, bytes(32, 0x11), 0, bytes(32, 0x22)).timed(1_700_000_000_000L,
                1_700_000_001_500L, 1_500);
    }

    /** A sled's view in {@code ordering} with {@code record}, in universe {@code network}, with job J running. */
    private static SledRuntime.View view(Ordering ordering, Optional<Object> record, NetworkId network) {
        return new SledRuntime.View(network, null, ordering, record, network == null ? Optional.empty()
                : Optional.of(ZERO), true, Set.of(J), 2);
    }

    @Test
    void aSledsStatusOfAJob() {
        pin("{\"status\":\"started\",\"sled_started_at\":\"2023-11-14T22:13:20Z\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.STARTED, new Message.JobStarted(A, J,
                        1_700_000_000_000L))));
        pin("{\"status\":\"started\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.STARTED, new Message.JobStarted(A, J))));
        pin("{" + STOPPED_FIELDS + "}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.STOPPED, stopped())));
        pin("{\"status\":\"stopped\",\"process_error\":\"the process did not start\",\"stdout_bytes\":0," +
                "\"stdout_sha3\":\"3333333333333333333333333333333333333333333333333333333333333333\"," +
                "\"stderr_bytes\":0," +
                "\"stderr_sha3\":\"3333333333333333333333333333333333333333333333333333333333333333\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.STOPPED, new Message.JobStopped(A, J, null,
                        "the process did not start", 0, bytes(32, 0x33), 0, bytes(32, 0x33)))));
        pin("{\"status\":\"error\",\"error\":\"output-limit\",\"detail\":\"output over 10 bytes\"," +
                "\"signal\":9,\"sled_started_at\":\"2023-11-14T22:13:20Z\"," +
                "\"sled_ended_at\":\"2023-11-14T22:13:20.250Z\",\"duration_ms\":250}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.ERROR, new Message.JobErrored(A, J,
                        Message.JobError.OUTPUT_LIMIT, "output over 10 bytes", 9).timed(1_700_000_000_000L,
                                1_700_000_000_250L, 250))));
        pin("{\"status\":\"error\",\"error\":\"io\",\"detail\":\"disk\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.ERROR, new Message.JobErrored(A, J,
                        Message.JobError.IO, "disk", 0))));
        pin("{\"status\":\"skipped\",\"reason\":\"below-floor\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.SKIPPED, new Message.JobSkipped(A, J,
                        Message.SkipReason.BELOW_FLOOR))));
        pin("{\"status\":\"skipped\",\"reason\":\"conflict\"," +
                "\"held\":\"advice-cage-absurd-amount-doctor-acoustic-avoid-letter\"," +
                "\"refused\":\"agree-choice-donor-anxiety-expect-little-beef-pass\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.SKIPPED, new Message.JobConflict(A, J, job(4),
                        job(5)))));
        pin("{\"status\":\"cancelled\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.CANCELLED, new Message.JobCancelled(A, J))));
        pin("{\"status\":\"queued\"}",
                Json.MAPPER.writeValueAsString(Json.status(JobStatus.QUEUED, null)));
    }

    @Test
    void aJobsStatusesAndAPageOfJobs() {
        Map<String, StatusProjection.Entry> byReporter = new TreeMap<>(Map.of(B, new StatusProjection.Entry(
                JobStatus.STARTED, new Message.JobStarted(B, J)), A, new StatusProjection.Entry(JobStatus.STOPPED,
                        stopped())));
        pin("{\"total\":12,\"offset\":10,\"limit\":2,\"jobs\":[{\"job_id\":\"" + JP + "\",\"session_id\":\"" +
                SP + "\",\"statuses\":{\"" + A + "\":{" + STOPPED_FIELDS + "},\"" + B +
                "\":{\"status\":\"started\"}}}]}",
                WireAccess.jobPage(12, 10, 2, J, Optional.of(S), byReporter));
        pin("{\"total\":1,\"offset\":0,\"limit\":20,\"jobs\":[{\"job_id\":\"" + JP +
                "\",\"session_id\":null,\"statuses\":{}}]}",
                WireAccess.jobPage(1, 0, 20, J, Optional.empty(), Map.of()));
        pin("{\"job_id\":\"" + JP + "\",\"statuses\":{\"" + A + "\":{" + STOPPED_FIELDS + "},\"" + B +
                "\":{\"status\":\"started\"}}}",
                WireAccess.status(J, byReporter, Map.of()));
        pin("{\"job_id\":\"" + JP + "\",\"statuses\":{\"" + A + "\":{" + STOPPED_FIELDS + "},\"" + B +
                "\":{\"status\":\"started\"}},\"conflicts\":{\"" + B +
                "\":{\"reason\":\"conflict\",\"held\":\"advice-cage-absurd-amount-doctor-acoustic-avoid-letter\"," +
                "\"refused\":\"agree-choice-donor-anxiety-expect-little-beef-pass\"}}}",
                WireAccess.status(J, byReporter, Map.of(B, new Message.JobConflict(B, J, job(4), job(5)),
                                "913-0000019:C",
                        new Message.JobConflict("913-0000019:C", J, job(6), job(7)))));
    }

    @Test
    void versionHealthAndReadiness() {
        pin("{\"baseboard\":\"" + A + "\",\"cubby\":3,\"software\":\"0.1.0+abc\"," + VERSION_FIELDS +
                ",\"network\":\"n-1\",\"ordering\":\"signed\",\"rack_id\":\"rack-1\",\"containment\":\"marker\"," +
                "\"job_sessions\":\"setsid\"}",
                WireAccess.version(new Sled(A, 3), "0.1.0+abc", "n-1", Ordering.SIGNED, "rack-1", "marker", "setsid"));
        pin("{\"status\":\"ok\",\"sled\":\"" + A + "\",\"rack_id\":\"rack-1\",\"loop_ms\":0.25}",
                WireAccess.health(A, "rack-1", 0.25, Optional.empty()));
        pin("{\"status\":\"failed\",\"sled\":\"" + A +
                "\",\"rack_id\":\"rack-1\",\"loop_ms\":12.0,\"failure\":\"the loop stopped: boom\"}",
                WireAccess.health(A, "rack-1", 12.0, Optional.of("the loop stopped: boom")));
        pin("{\"ready\":false,\"reasons\":[\"not in a universe yet\"],\"store_trusted\":true," +
                "\"ordering\":\"causal\",\"universe\":null,\"peers_connected\":0,\"peers_expected\":1," +
                "\"floor\":null,\"pending_launches\":2,\"running\":1,\"set_messages\":0,\"set_fill\":0.0}",
                WireAccess.readiness(view(Ordering.CAUSAL, Optional.empty(), null),
                        List.of("not in a universe yet"), 0, 1, 0, null, null));
        pin("{\"ready\":true,\"reasons\":[],\"store_trusted\":true,\"ordering\":\"signed\"," +
                "\"universe\":\"44444444444444444444444444444444\",\"peers_connected\":1,\"peers_expected\":1," +
                "\"floor\":41,\"pending_launches\":2,\"running\":1,\"set_messages\":3," +
                "\"set_fill\":2.86102294921875E-6,\"disk_free_bytes\":1000000,\"disk_reserve_bytes\":4096}",
                WireAccess.readiness(view(Ordering.SIGNED, Optional.of(SignedRecord.provisioned(A, 41)),
                        NetworkId.of(bytes(16, 0x44))), List.of(), 1, 1, 3, 1_000_000L, 4096L));
    }

    @Test
    void theBoundary() {
        NetworkId net = NetworkId.of(bytes(16, 0x55));
        Committed c = new Committed(S, J, NEXT, new Outcome(JobStatus.STOPPED, 0, ""));
        BoundaryRecord causal = new BoundaryRecord(A, net, ZERO, Optional.of(c), List.of(new Left(
                NetworkId.of(bytes(16, 0x66)), ZERO, Optional.empty())), Bloom.EMPTY, false);
        pin("{\"network\":\"55555555555555555555555555555555\",\"executed\":\"0\"," +
                "\"committed\":{\"session\":\"" + SP + "\",\"job\":\"" + JP + "\",\"successor\":\"" + NP +
                "\",\"outcome\":\"stopped\",\"code\":0},\"recent\":[\"66666666666666666666666666666666\"]," +
                "\"bloom_bits_set\":0,\"amnesiac\":false}",
                WireAccess.record(causal));
        pin("{\"baseboard\":\"" + A +
                "\",\"trusted\":true,\"load\":\"ok\",\"load_reason\":\"both slots agree\",\"changed\":null," +
                "\"ordering\":\"causal\",\"floor\":\"0\"," +
                "\"record\":{\"network\":\"55555555555555555555555555555555\",\"executed\":\"0\"," +
                "\"committed\":{\"session\":\"" + SP + "\",\"job\":\"" + JP + "\",\"successor\":\"" + NP +
                "\",\"outcome\":\"stopped\",\"code\":0},\"recent\":[\"66666666666666666666666666666666\"]," +
                "\"bloom_bits_set\":0,\"amnesiac\":false}}",
                WireAccess.boundary(A, view(Ordering.CAUSAL, Optional.of(causal), net), "ok",
                        "both slots agree", Optional.empty()));
        SignedRecord signed = new SignedRecord(A, 5, Optional.of(new SignedCommitted(new SessionRank(9, key(8), S), J,
                NEXT, new Outcome(JobStatus.ERROR, 3, "killed"))));
        pin("{\"floor_epoch\":5,\"committed\":{\"session\":\"" + SP + "\",\"job\":\"" + JP +
                "\",\"successor\":\"" + NP + "\",\"outcome\":\"error\",\"code\":3,\"epoch\":9,\"signer\":\"" + KP +
                "\"}}",
                WireAccess.signedRecord(signed));
        pin("{\"baseboard\":\"" + A +
                "\",\"trusted\":true,\"load\":\"ok\",\"load_reason\":\"both slots agree\"," +
                "\"changed\":\"slot 1 changed\",\"ordering\":\"signed\",\"floor\":5," +
                "\"record\":{\"floor_epoch\":5,\"committed\":{\"session\":\"" + SP + "\",\"job\":\"" + JP +
                "\",\"successor\":\"" + NP + "\",\"outcome\":\"error\",\"code\":3,\"epoch\":9,\"signer\":\"" + KP +
                "\"}}}",
                WireAccess.boundary(A, view(Ordering.SIGNED, Optional.of(signed), net), "ok",
                        "both slots agree", Optional.of("slot 1 changed")));
        pin("{\"baseboard\":\"" + A +
                "\",\"trusted\":true,\"load\":\"empty\",\"load_reason\":\"no record\",\"changed\":null," +
                "\"ordering\":\"signed\",\"floor\":null,\"record\":null}",
                WireAccess.boundary(A, view(Ordering.SIGNED, Optional.empty(), net), "empty",
                        "no record", Optional.empty()));
    }

    @Test
    void theActiveSession() {
        SessionProjection.Session causal = new SessionProjection.Session(S, ZERO, "starter-key", A);
        pin("{\"session_id\":\"" + SP + "\",\"starter\":\"starter-key\",\"acceptor\":\"" + A +
                "\",\"ordering\":\"causal\",\"next_job\":\"" + NP + "\"}",
                WireAccess.session(causal, Optional.empty(), NEXT.codephrase()));
        SignedGrant g = new SignedGrant(new Grant(9, key(8), "starter-key", bytes(32, 7)), SignatureAlgorithm.ED25519,
                bytes(64, 1));
        pin("{\"session_id\":\"announce-vacuum-duty-blind-swear-giant-romance-soda\"," +
                "\"starter\":\"starter-key\",\"acceptor\":null,\"ordering\":\"signed\",\"epoch\":9,\"signer\":\"" +
                KP + "\",\"next_job\":null}",
                WireAccess.session(new SessionProjection.Session(g.grant().session(), ZERO, "starter-key",
                        null), Optional.of(g), null));
    }

    @Test
    void eventsAsStreamed() {
        pin("id: 7\nevent: status\ndata: {\"job_id\":\"" + JP + "\",\"baseboard\":\"" + A + "\"," +
                STOPPED_FIELDS + ",\"sled\":\"" + A + "\"}",
                WireAccess.event(new SledEvent.StatusChanged(J, A, JobStatus.STOPPED, stopped()), A));
        pin("id: 7\nevent: floor\ndata: {\"cause\":\"session-hop\",\"sled\":\"" + A + "\"}",
                WireAccess.event(new SledEvent.FloorRaised(FloorCause.SESSION_HOP, ZERO), A));
        pin("id: 7\nevent: error\ndata: {\"error\":\"session-hop\",\"detail\":\"two sessions\",\"sled\":\"" + A +
                "\"}",
                WireAccess.event(new SledEvent.Gossiped(new Message.RackError(B, Message.RackErrorKind.SESSION_HOP, S,
                        "two sessions")), A));
        pin("id: 7\nevent: error\ndata: {\"error\":\"sled\",\"detail\":\"the loop stopped\",\"sled\":\"" + A +
                "\"}",
                WireAccess.event(new SledEvent.Failed("the loop stopped"), A));
        assertNull(WireAccess.event(new SledEvent.Requested(J), A));
    }

    @Test
    void aSignedRequestAsAChainShowsIt() {
        JobRequest plain = new JobRequest(S, J, "printf hi", "*", false);
        pin("{\"session\":\"" + SP + "\",\"job\":\"" + JP +
                "\",\"command\":\"printf hi\",\"target\":\"*\",\"concurrent\":false,\"key\":\"" + KP +
                "\",\"algorithm\":\"ed25519\"," +
                "\"signature\":\"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB" +
                "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ==\"}",
                Json.MAPPER.writeValueAsString(SignedRequests.toJson(new SignedJob(plain, key(8),
                        SignatureAlgorithm.ED25519, bytes(64, 1)))));
        JobRequest limited = new JobRequest(S, J, "top", "cubby=3", true, new JobLimits(1000, 0, 5, 0, 0),
                JobMode.INTERACTIVE);
        pin("{\"session\":\"" + SP + "\",\"job\":\"" + JP +
                "\",\"command\":\"top\",\"target\":\"cubby=3\",\"concurrent\":true," +
                "\"limits\":{\"wall_time_ms\":1000,\"cpu_seconds\":5},\"mode\":\"interactive\",\"key\":\"" + KP +
                "\",\"algorithm\":\"ed25519\"," +
                "\"signature\":\"AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIC" +
                "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAg==\"}",
                Json.MAPPER.writeValueAsString(SignedRequests.toJson(new SignedJob(limited, key(8),
                        SignatureAlgorithm.ED25519, bytes(64, 2)))));
    }

    @Test
    void aRefusal() throws Exception {
        pin("404 application/json {\"error\":\"no-session\",\"message\":\"no session is active\"}\n",
                WireAccess.error(404, "no-session", "no session is active"));
    }

    /** The body as built, byte for byte. */
    private static void pin(String expected, String actual) {
        assertEquals(expected, actual);
    }
}
