package sush.ops.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.pipeline.sim.SimMain;

/** {@code sush simulate}: the deterministic rack simulator. */
@Command(name = "simulate", description = "Run the deterministic rack simulator; prints failing seeds and traces.")
public final class SimulateCommand implements Callable<Integer> {
    @Option(names = "--seeds", defaultValue = "300", description = "how many seeds to run (default: "
            + "${DEFAULT-VALUE})")
    int seeds;
    @Option(names = "--sleds", description = "sleds per simulated rack (default: each seed picks)")
    Integer sleds;
    @Option(names = "--seed", description = "replay one seed with its trace")
    Long seed;

    @Override
    public Integer call() throws Exception {
        List<String> args = new ArrayList<>(List.of("--seeds", Integer.toString(seeds)));
        if (sleds != null) {
            args.addAll(List.of("--sleds", sleds.toString()));
        }
        if (seed != null) {
            args.addAll(List.of("--seed", seed.toString()));
        }
        SimMain.main(args.toArray(new String[0]));
        return 0;
    }
}
