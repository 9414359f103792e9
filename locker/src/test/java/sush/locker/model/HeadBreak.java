package sush.locker.model;

import java.util.function.Supplier;

import sush.locker.admission.HeadRules;

/**
 * A head rule broken on purpose, for the chain check to catch (issue 37): {@link ChainSled}
 * always asks the product's {@link HeadRules} and passes each answer through one of these, which
 * bends it the way a plausible bug would; {@link #NONE} passes every answer through unchanged.
 * The rules themselves are never copied here: a break only rewrites what they answered.
 */
enum HeadBreak {
    /** The product's rules, unchanged. */
    NONE,
    /**
     * A starter's stop is dropped before the rules see it: no kill, nothing kept for a launch or
     * for the head, no cancel.
     */
    STOP_IGNORED {
        @Override
        HeadRules.OnStop onStop(Supplier<HeadRules.OnStop> rules) {
            return HeadRules.OnStop.NONE;
        }
    },
    /** A stop kept for a committed job's launch is forgotten: the job is spawned anyway. */
    LAUNCH_DESPITE_STOP {
        @Override
        boolean launch(boolean rules) {
            return true;
        }
    },
    /** A stop kept until its job reaches the head is forgotten there: admitted, the job runs. */
    KEPT_STOP_IGNORED_AT_HEAD {
        @Override
        HeadRules.Admitted admitted(HeadRules.Admitted rules) {
            return HeadRules.Admitted.RUN;
        }
    },
    /** A stop of a running job is taken as one of a job that never started: reported cancelled, not killed. */
    RUNNING_STOP_CANCELS {
        @Override
        HeadRules.OnStop onStop(Supplier<HeadRules.OnStop> rules) {
            HeadRules.OnStop what = rules.get();
            return what == HeadRules.OnStop.KILL ? HeadRules.OnStop.CANCEL : what;
        }
    },
    /** A job its starter stopped before it started is screened at the head as if it had not been stopped. */
    STOPPED_JOB_SCREENED {
        @Override
        HeadRules.AtHead atHead(HeadRules.AtHead rules) {
            return rules == HeadRules.AtHead.CANCELLED ? HeadRules.AtHead.SCREEN : rules;
        }
    };

    /** What the sled does with the job at the head, given what {@link HeadRules#atHead} answered. */
    HeadRules.AtHead atHead(HeadRules.AtHead rules) {
        return rules;
    }

    /**
     * What a starter's stop means, given how to ask {@link HeadRules#onStop} (asking also keeps
     * the stop where it must wait).
     */
    HeadRules.OnStop onStop(Supplier<HeadRules.OnStop> rules) {
        return rules.get();
    }

    /** What an admitted job at the head does, given what {@link HeadRules#admitted} answered. */
    HeadRules.Admitted admitted(HeadRules.Admitted rules) {
        return rules;
    }

    /** Whether a committed job is launched, given what {@link HeadRules#launch} answered. */
    boolean launch(boolean rules) {
        return rules;
    }
}
