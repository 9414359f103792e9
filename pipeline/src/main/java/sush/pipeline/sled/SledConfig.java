package sush.pipeline.sled;

import java.util.Objects;

import sush.pipeline.exec.Limits;
import sush.projections.job.TrustStore;
import sush.projections.targets.Sled;

/** Who the sled is and what it trusts. */
public record SledConfig(Sled me, TrustStore trust, String software, Limits limits) {
    public SledConfig {
        Objects.requireNonNull(me, "me");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(software, "software");
        Objects.requireNonNull(limits, "limits");
    }
}
