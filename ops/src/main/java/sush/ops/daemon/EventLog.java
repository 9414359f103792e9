package sush.ops.daemon;

import java.util.Locale;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sush.locker.admission.Verdict;
import sush.pipeline.sled.SledEvent;
import sush.projections.message.Message;

/**
 * The sled's events as log lines (issue 16), one each: entries and migrations, floors, verdicts
 * that refuse, commits with their record sequence and time, launches, endings, failures, the
 * gossip set filling up, rack errors. Job ids only: no command text or output at any level.
 */
final class EventLog {
    private static final Logger LOG = LoggerFactory.getLogger("sush.sled");

    private EventLog() {
    }

    static void log(SledEvent e) {
        if (e instanceof SledEvent.Entered) {
            SledEvent.Entered x = (SledEvent.Entered) e;
            LOG.info("entered universe {} (entry {}, {}){}", x.network(), x.sequence(),
                    x.cause().toLowerCase(Locale.ROOT),
                    x.floor().map(c -> "; floor raised: " + c).orElse(""));
        } else if (e instanceof SledEvent.FloorRaised) {
            SledEvent.FloorRaised x = (SledEvent.FloorRaised) e;
            LOG.info("floor raised ({}) at {}", x.cause(), x.version());
        } else if (e instanceof SledEvent.Screened) {
            SledEvent.Screened x = (SledEvent.Screened) e;
            if (x.verdict() instanceof Verdict.Admit) {
                LOG.debug("admitted {}: {}", x.job(), x.verdict());
            } else {
                LOG.info("refused {}: {}", x.job(), x.verdict());
            }
        } else if (e instanceof SledEvent.Committed) {
            SledEvent.Committed x = (SledEvent.Committed) e;
            LOG.info("committed {} as record {} in {} us", x.job(), x.seq(), x.micros());
        } else if (e instanceof SledEvent.Launched) {
            LOG.info("launched {}", ((SledEvent.Launched) e).job());
        } else if (e instanceof SledEvent.Ended) {
            SledEvent.Ended x = (SledEvent.Ended) e;
            LOG.info("ended {}: {}", x.job(), x.summary());
        } else if (e instanceof SledEvent.Failed) {
            LOG.warn("{}", ((SledEvent.Failed) e).what());
        } else if (e instanceof SledEvent.Deferred) {
            LOG.info("{} not gossiped yet: the sled is bootstrapping into a universe; it is told once it entered",
                    ((SledEvent.Deferred) e).message().getClass().getSimpleName());
        } else if (e instanceof SledEvent.Halted) {
            SledEvent.Halted x = (SledEvent.Halted) e;
            LOG.error("the sled stopped admitting after an unexpected failure in {}: {}", x.stage(), x.error());
        } else if (e instanceof SledEvent.SetFill) {
            SledEvent.SetFill x = (SledEvent.SetFill) e;
            LOG.warn("the gossip set holds {} of {} messages ({}%){}", x.messages(), x.capacity(), x.percent(),
                    x.percent() >= 100 ? ": sends are refused until a new universe (a whole-rack cold boot)" : "");
        } else if (e instanceof SledEvent.ChainFill) {
            SledEvent.ChainFill x = (SledEvent.ChainFill) e;
            LOG.warn("session {}'s chain remembers {} of {} positions ({}%){}", x.session().codephrase(), x.positions(),
                    x.capacity(), x.percent(), x.percent() >= 100 ? ": later jobs of the session wait behind a hole"
                            + " until a new session (start one)" : ": start a new session before it is full");
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.RackError) {
            Message.RackError r = (Message.RackError) ((SledEvent.Gossiped) e).message();
            LOG.warn("rack error {}: {}", r.kind(), r.detail());
        } else if (e instanceof SledEvent.Jumped) {
            SledEvent.Jumped x = (SledEvent.Jumped) e;
            LOG.info("session {}: the head jumped from {} to {} over positions the rack forgot", x.session()
                    .codephrase(), x.from().codephrase(), x.to().codephrase());
        } else if (e instanceof SledEvent.Forgot) {
            LOG.debug("forgot {} settled messages from the gossip set", ((SledEvent.Forgot) e).versions().size());
        } else if (e instanceof SledEvent.Drained) {
            LOG.debug("replayed this universe's log ({})", e);
        }
    }
}
