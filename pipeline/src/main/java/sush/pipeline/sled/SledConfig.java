package sush.pipeline.sled;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import sush.pipeline.disk.DiskReserve;
import sush.pipeline.exec.Limits;
import sush.projections.fold.FoldBounds;
import sush.projections.fold.Settlement;
import sush.projections.job.TrustStore;
import sush.projections.targets.Sled;

/**
 * Who the sled is and what it trusts; {@code clock}, when given, stamps its jobs' start and end
 * times on their statuses (shown to operators, never used to order anything). {@code api}, when
 * given, is the URL of the sled's API, announced so that any sled can fetch this one's job output.
 */
public record SledConfig(Sled me, TrustStore trust, String software, Limits limits,
        Optional<SledClock> clock, Optional<String> api,
        FoldBounds bounds, DiskReserve disk, Optional<Settling> settling) {
    /**
     * Bounded gossip (issue 39): the rack's sleds (every one holds forgetting up until its
     * watermarks say otherwise), and how often the sled tells where it stands when something
     * changed. Without it the sled sends no watermark and forgets nothing.
     */
    public record Settling(List<Sled> rack, Duration every, Settlement.Break rule) {
        /** What a sled runs: the settlement's own rules. */
        public Settling(List<Sled> rack, Duration every) {
            this(rack, every, Settlement.Break.NONE);
        }

        public Settling {
            rack = List.copyOf(rack);
            Objects.requireNonNull(rule, "rule");
            if (rack.isEmpty() || every.isNegative() || every.isZero()) {
                throw new IllegalArgumentException("settling needs the rack's sleds and a period: " + rack + ", " + every);
            }
        }
    }

    public SledConfig {
        Objects.requireNonNull(settling, "settling");
        Objects.requireNonNull(disk, "disk");
        Objects.requireNonNull(bounds, "bounds");
        Objects.requireNonNull(me, "me");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(software, "software");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(api, "api");
    }

    /** A sled whose memories have the daemon's bounds. */
    public SledConfig(Sled me, TrustStore trust, String software, Limits limits,
            Optional<SledClock> clock, Optional<String> api) {
        this(me, trust, software, limits, clock, api, FoldBounds.DEFAULTS,
                DiskReserve.NONE, Optional.empty());
    }

    /** The same sled with its memories bounded by {@code b} (the simulator scales them down). */
    public SledConfig withBounds(FoldBounds b) {
        return new SledConfig(me, trust, software, limits, clock, api, b, disk, settling);
    }

    /** The same sled on an output disk with {@code d}'s reserve: short of space, it refuses jobs (issue 35). */
    public SledConfig withDisk(DiskReserve d) {
        return new SledConfig(me, trust, software, limits, clock, api, bounds, d, settling);
    }

    /** The same sled sending watermarks and forgetting what the rack settled (issue 39). */
    public SledConfig withSettling(Settling s) {
        return new SledConfig(me, trust, software, limits, clock, api, bounds, disk, Optional.of(s));
    }

    /** A sled that announces no API. */
    public SledConfig(Sled me, TrustStore trust, String software, Limits limits, Optional<SledClock> clock) {
        this(me, trust, software, limits, clock, Optional.empty());
    }

    /** A sled that keeps no times (the simulator, tests): its messages are reproducible. */
    public SledConfig(Sled me, TrustStore trust, String software, Limits limits) {
        this(me, trust, software, limits, Optional.empty());
    }
}
