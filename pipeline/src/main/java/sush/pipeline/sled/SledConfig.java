package sush.pipeline.sled;

import java.util.Objects;

import sush.pipeline.exec.Limits;
import sush.projections.job.TrustStore;
import sush.projections.targets.Sled;

/**
 * Who the sled is and what it trusts; {@code clock}, when given, stamps its jobs' start and end
 * times on their statuses (shown to operators, never used to order anything).
 */
public record SledConfig(Sled me, TrustStore trust, String software, Limits limits,
        java.util.Optional<SledClock> clock) {
    public SledConfig {
        Objects.requireNonNull(me, "me");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(software, "software");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(clock, "clock");
    }

    /** A sled that keeps no times (the simulator, tests): its messages are reproducible. */
    public SledConfig(Sled me, TrustStore trust, String software, Limits limits) {
        this(me, trust, software, limits, java.util.Optional.empty());
    }
}
