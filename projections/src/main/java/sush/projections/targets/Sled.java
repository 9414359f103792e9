package sush.projections.targets;

/**
 * A sled as targets see it: its baseboard id {@code part:serial} and the cubby the rack's cubby
 * map puts it in.
 */
public record Sled(String baseboard, int cubby) {
    public Sled {
        if (baseboard.indexOf(':') <= 0 || baseboard.indexOf(':') == baseboard.length() - 1) {
            throw new IllegalArgumentException("a baseboard is part:serial, not '" + baseboard + "'");
        }
        if (cubby < Target.MIN_CUBBY || cubby > Target.MAX_CUBBY) {
            throw new IllegalArgumentException("cubby " + cubby + " outside " + Target.MIN_CUBBY + ".." + Target.MAX_CUBBY);
        }
    }

    public String serial() {
        return baseboard.substring(baseboard.indexOf(':') + 1);
    }
}
