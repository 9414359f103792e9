package sush.ops.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sush.ops.wire.Answers;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.Versions;
import sush.projections.job.JobLimits;
import sush.projections.job.JobWave;

/**
 * {@code sush job plan} (issue 40): a dry run. Every sled the rack knows (asked through this one,
 * relayed) says what it would do now with a job at the active session's next position, from its
 * fold and boundary record, committing, signing and sending nothing: run (in which wave), wait
 * (for which position), or refuse with the reason it would give. Exit 0 when every targeted sled
 * would run, 5 otherwise.
 */
@Command(name = "plan", description = "Dry run: what every sled would do with a job at the next position now.")
final class JobPlanCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Option(names = "--target", defaultValue = "*", description = "*, cubbies (0,3), baseboards or serials")
    String target;
    @Option(names = "--concurrent", description = "the job may start beside the previous job on each sled")
    boolean concurrent;
    @Option(names = "--yes", description = "plan for a target naming a baseboard or serial no sled announces")
    boolean yes;
    @Mixin
    LimitOptions limits;
    @Mixin
    WaveOptions waves;

    @Override
    public Integer call() {
        try {
            Client c = g.client();
            JobRequests.checkTarget(target);
            UnknownSleds.check(c, target, yes);
            JobWave wave = waves.wave();
            String planned = wave.isSet() ? WaveOptions.cubbies(c, target) : target;
            StringBuilder query = new StringBuilder("target=" + URLEncoder.encode(planned, StandardCharsets.UTF_8));
            if (wave.isSet()) {
                query.append("&wave_size=").append(wave.size()).append("&max_failures=").append(wave.maxFailures());
            }
            if (concurrent) {
                query.append("&concurrent=true");
            }
            JobLimits l = limits.limits();
            for (JobLimits.Kind k : JobLimits.Kind.values()) {
                if (l.get(k) > 0) {
                    query.append('&').append(SignedRequests.LIMIT_FIELDS[k.ordinal()]).append('=').append(l.get(k));
                }
            }
            List<Answers.Plan> plans = new ArrayList<>();
            for (Versions.Sled s : c.get("/versions", Versions.class).sleds()) {
                String board = Said.text(s.baseboard());
                try {
                    plans.add(c.get("/plan?sled=" + URLEncoder.encode(board, StandardCharsets.UTF_8) + "&" + query,
                            Answers.Plan.class));
                } catch (Client.Failure f) {
                    if (f.exit() == 2 && !f.code().equals("sled-unreachable")) {
                        throw f; // the request itself is wrong: every sled would say so
                    }
                    plans.add(new Answers.Plan(board, Said.number(s.cubby(), -1), "unreachable", f.getMessage(), null,
                            null));
                }
            }
            plans.sort((a, b) -> Integer.compare(a.cubby(), b.cubby()));
            boolean allRun = plans.stream().filter(p -> !"not-targeted".equals(p.verdict())).allMatch(p -> "run"
                    .equals(p.verdict())) && plans.stream().anyMatch(p -> "run".equals(p.verdict()));
            StringBuilder b = new StringBuilder();
            if (wave.isSet()) {
                b.append(WaveOptions.describe(wave, planned)).append('\n');
            }
            for (Answers.Plan p : plans) {
                b.append(String.format("%2d  %s  %s", p.cubby(), Client.printable(Said.text(p.sled())),
                        Said.text(p.verdict())));
                if (p.wave() != null) {
                    b.append(" in wave ").append(p.wave());
                }
                if (p.reason() != null) {
                    b.append(": ").append(Client.printable(p.reason()));
                }
                b.append('\n');
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("target", planned);
            doc.put("sleds", plans);
            doc.put("all_run", allRun);
            g.print(doc, b.toString().stripTrailing());
            return allRun ? 0 : 5;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
