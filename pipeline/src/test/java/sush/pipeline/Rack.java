package sush.pipeline;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.JobRequest;
import sush.projections.job.KeyException;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Sled;

/** Test fixture: a signer, a trust store, and builders of causal message streams. */
public final class Rack {
    public static final SignerKey KEY = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
    public static final TrustStore TRUST = trust();
    public static final Sled ME = new Sled("913-0000019:SLED00", 0);

    private Rack() {
    }

    private static TrustStore trust() {
        try {
            return TrustStore.of(List.of(KEY.publicPem()));
        } catch (KeyException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A message with its version, as a replica delivers it. */
    public record Delivery(Version version, byte[] payload) {
    }

    /** Builds a causal stream: each message ticks one of {@code parties} identities over everything before it. */
    public static final class Stream {
        private final List<Id> ids;
        private Version frontier = Version.ZERO;
        private int next;
        public final List<Delivery> deliveries = new ArrayList<>();

        public Stream(int parties) {
            ids = Id.ONE.fork(parties);
        }

        public Stream add(Message m) {
            frontier = frontier.tick(ids.get(next++ % ids.size()));
            deliveries.add(new Delivery(frontier, MessageCodec.encode(m)));
            return this;
        }

        public Version frontier() {
            return frontier;
        }
    }

    public static SessionId session(int n) {
        byte[] nonce = new byte[SessionIds.NONCE_BYTES];
        nonce[0] = (byte) n;
        return SessionIds.compute(ME.baseboard(), nonce, new byte[] {(byte) n});
    }

    public static Message.SessionStart start(int n) {
        byte[] nonce = new byte[SessionIds.NONCE_BYTES];
        nonce[0] = (byte) n;
        return new Message.SessionStart(session(n), ME.baseboard(), nonce, new byte[] {(byte) n}, "operator");
    }

    /** A grant of {@link #KEY} at {@code epoch} for the operator (ordered-sessions.md section 1). */
    public static sush.projections.job.SignedGrant grant(long epoch, int nonce) {
        byte[] n = new byte[sush.projections.job.Grant.NONCE_BYTES];
        n[0] = (byte) nonce;
        return KEY.sign(new sush.projections.job.Grant(epoch, KEY.id(), "operator", n));
    }

    /** Signed jobs of a session's chain, in order, each on {@code target}. */
    public static List<SignedJob> jobs(SessionId s, int count, String command, String target) {
        return jobs(s, count, command, target, false);
    }

    /** As {@link #jobs(SessionId, int, String, String)}, each flagged {@code concurrent}. */
    public static List<SignedJob> jobs(SessionId s, int count, String command, String target, boolean concurrent) {
        List<SignedJob> out = new ArrayList<>();
        JobId at = Chain.first(s);
        for (int i = 0; i < count; i++) {
            JobRequest r = new JobRequest(s, at, command + " " + i, target, concurrent);
            out.add(KEY.sign(r));
            at = r.successor();
        }
        return out;
    }
}
