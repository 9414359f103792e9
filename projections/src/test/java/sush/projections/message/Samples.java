package sush.projections.message;

import java.util.LinkedHashMap;
import java.util.Map;

import sush.projections.id.Id88;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedJob;

/** Test fixture: one fixed instance of every message kind. */
final class Samples {
    static final String SLED = "913-0000019:BRM42220001";

    private Samples() {
    }

    static byte[] filled(int length, int value) {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    static SessionId session() {
        return new SessionId(filled(Id88.BYTES, 1));
    }

    static JobId job() {
        return new JobId(filled(Id88.BYTES, 2));
    }

    static Map<String, Message> all() {
        Map<String, Message> m = new LinkedHashMap<>();
        m.put("session-start", new Message.SessionStart(session(), SLED, filled(32, 3), filled(16, 4), "operator"));
        m.put("session-stop", new Message.SessionStop(session(), "operator"));
        m.put("job-skip", new Message.JobSkip(session(), job(), "operator"));
        m.put("job-start", new Message.JobStart(new SignedJob(new JobRequest(session(), job(), "uptime", "*", false),
                new KeyId(filled(Id88.BYTES, 5)), SignatureAlgorithm.ED25519, filled(64, 6))));
        m.put("job-stop", new Message.JobStop(job(), "operator"));
        m.put("announcement", new Message.Announcement(SLED, "0.1.0", 7));
        m.put("job-started", new Message.JobStarted(SLED, job()));
        m.put("job-stopped", new Message.JobStopped(SLED, job(), 0, null, 12, filled(32, 8), 0, filled(32, 9)));
        m.put("job-error", new Message.JobErrored(SLED, job(), Message.JobError.KILLED, "stopped by operator", 9));
        m.put("job-skipped", new Message.JobSkipped(SLED, job(), Message.SkipReason.BELOW_FLOOR));
        m.put("job-cancelled", new Message.JobCancelled(SLED, job()));
        m.put("job-conflict", new Message.JobConflict(SLED, job(), new sush.projections.id.JobId(filled(Id88.BYTES, 19)),
                new sush.projections.id.JobId(filled(Id88.BYTES, 20))));
        m.put("rack-error", new Message.RackError(SLED, Message.RackErrorKind.SESSION_HOP, session(), "hop"));
        m.put("operator-login", new Message.OperatorLogin(SLED, filled(51, 10), filled(16, 11), filled(8, 12),
                filled(32, 13), filled(83, 14), 1_800_000_000_000L));
        m.put("session-grant", new Message.SessionGrant(new sush.projections.job.SignedGrant(
                new sush.projections.job.Grant(1_764_600_000_000L, new KeyId(filled(Id88.BYTES, 16)), "operator",
                        filled(32, 17)), sush.projections.job.SignatureAlgorithm.ED25519, filled(64, 18))));
        m.put("session-access", new Message.SessionAccess(session(), "able-acid-aged-also-area-army-away-baby",
                Message.Access.WRITE, "operator"));
        m.put("operator-revoked", new Message.OperatorRevoked(new KeyId(filled(Id88.BYTES, 15)),
                "able-acid-aged-also-area-army-away-baby"));
        m.put("operator-unrevoked", new Message.OperatorUnrevoked(new KeyId(filled(Id88.BYTES, 15)),
                "able-acid-aged-also-area-army-away-baby", "00112233445566778899aabbccddeeff"));
        m.put("watermark", new Message.Watermark(SLED, session(), 300, job(),
                new sush.projections.id.JobId(filled(Id88.BYTES, 21)), 290L));
        return m;
    }
}
