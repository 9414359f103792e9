package sush.pipeline;

import java.util.ArrayList;
import java.util.List;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Grants;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Sled;

/**
 * Test fixture: a sled, its sessions, builders of causal message streams, and the jobs and grants
 * of {@link Signers#KEY} (the signer the pipeline's tests trust, {@link Signers#TRUST}).
 */
public final class Rack {
    public static final Sled ME = new Sled("913-0000019:SLED00", 0);

    private Rack() {
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

    /** A grant of {@link Signers#KEY} at {@code epoch} for the operator (ordered-sessions.md section 1). */
    public static SignedGrant grant(long epoch, int nonce) {
        return Grants.signed(Signers.KEY, epoch, nonce, "operator");
    }

    /** Signed jobs of a session's chain, in order, each on {@code target}. */
    public static List<SignedJob> jobs(SessionId s, int count, String command, String target) {
        return jobs(s, count, command, target, false);
    }

    /** As {@link #jobs(SessionId, int, String, String)}, each flagged {@code concurrent}. */
    public static List<SignedJob> jobs(SessionId s, int count, String command, String target, boolean concurrent) {
        return Jobs.chain(Signers.KEY::sign, s, count, command, target, concurrent);
    }
}
