package sush.ops.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sush.ops.wire.JobPage;
import sush.ops.wire.SledStatus;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush job history}: recent jobs, newest first, each with its statuses over the sleds in a
 * few words; pages with {@code --limit} and {@code --offset}.
 */
@Command(name = "history", description = "Recent jobs, newest first, with a summary of their statuses over "
        + "the sleds (the jobs of the rack's current universe that this sled knows).")
final class JobHistoryCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Option(names = "--limit", defaultValue = "20", description = "jobs to show (1 to 1000; default ${DEFAULT-VALUE})")
    int limit;
    @Option(names = "--offset", defaultValue = "0", description = "newest jobs to skip first (paging)")
    int offset;
    @Option(names = "--session", paramLabel = "S", description = "only session S's jobs (a codephrase)")
    String session;

    @Override
    public Integer call() {
        try {
            StringBuilder path = new StringBuilder("/jobs?limit=").append(limit).append("&offset=").append(offset);
            if (session != null) {
                path.append("&session=").append(URLEncoder.encode(session, StandardCharsets.UTF_8));
            }
            JsonNode page = g.client().get(path.toString());
            JobPage jobs = Client.read(page, JobPage.class);
            StringBuilder text = new StringBuilder();
            for (JobPage.Entry j : jobs.jobs()) {
                text.append(j.jobId()).append("  ").append(summary(j.statuses())).append('\n');
            }
            int shown = jobs.jobs().size();
            text.append(String.format(Locale.ROOT, "(%d of %d, from the newest %s)", shown,
                    Said.number(jobs.total()), offset == 0 ? "on" : "past " + offset));
            g.print(page, text.toString());
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }

    /** A job's statuses over the sleds in a few words: {@code 4 stopped exit 0}, {@code 3 stopped exit 0, 1 error}. */
    static String summary(Map<String, SledStatus> statuses) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (SledStatus st : statuses.values()) {
            String word = Said.text(st.status());
            if (st.exitCode() != null) {
                word += " exit " + st.exitCode();
            }
            counts.merge(word, 1, Integer::sum);
        }
        if (counts.isEmpty()) {
            return "no status yet";
        }
        StringBuilder b = new StringBuilder();
        counts.forEach((w, n) -> b.append(b.length() == 0 ? "" : ", ").append(n).append(' ').append(w));
        return Client.printable(b.toString());
    }
}
