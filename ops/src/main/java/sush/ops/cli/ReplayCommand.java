package sush.ops.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalException;
import sush.pipeline.journal.Replay;
import sush.projections.fold.Ordering;
import sush.projections.job.TrustStore;
import sush.projections.targets.Sled;

/** {@code sush replay JOURNAL}: re-folds a sled's journal and prints the timeline. */
@Command(name = "replay", description = "Re-fold a journal (OUTPUT/journal) and print the timeline.")
public final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "JOURNAL", description = "the journal directory (the sled's OUTPUT/journal)")
    Path journal;
    @Option(names = "--journal-key", paramLabel = "FILE", description = "the journal key (the daemon's "
            + "--journal-key: 32 bytes, raw or hex), if the journal is sealed")
    Path key;
    /**
     * The journal key under its old name (issue 41): {@code --key} is the signer key everywhere
     * else, so replay's is {@code --journal-key}; the old spelling still works for one release,
     * hidden from help, man pages and completion, with a warning. To be removed after it.
     */
    @Option(names = "--key", hidden = true, paramLabel = "FILE")
    Path deprecatedKey;
    @Option(names = "--until", defaultValue = "-1", description = "stop after record N")
    long until;
    @Option(names = "--baseboard", defaultValue = "unknown:sled", description = "the sled the journal belongs to")
    String baseboard;
    @Option(names = "--cubby", defaultValue = "0", description = "the sled's cubby (default: ${DEFAULT-VALUE})")
    int cubby;
    @Option(names = "--ordering", description = "signed or causal: the rack's session ordering (default: what the "
            + "journal's first session message says, a grant signed, a start causal)")
    String ordering;
    @Option(names = "--trust", split = ",", description = "trusted signer public keys, for jobs whose signature verdict the journal does not hold (older journals)")
    List<Path> trust = new ArrayList<>();

    /** Where this command runs: its streams, and the directory its paths are relative to. */
    private final Invocation invocation;

    ReplayCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() throws Exception {
        if (deprecatedKey != null) {
            invocation.err().println("sush: --key for replay is now --journal-key (--key is the signer key "
                    + "everywhere else; replay takes it this release only)");
            if (key != null) {
                invocation.err().println("sush: give the journal key once, with --journal-key");
                return 2;
            }
            key = deprecatedKey;
        }
        List<String> pems = new ArrayList<>();
        for (Path p : trust) {
            pems.add(Files.readString(invocation.path(p)));
        }
        Path journalDir = invocation.path(journal);
        PrintStream out = invocation.out();
        try {
            // Streamed: each step is printed as it is folded, so a journal of any length fits.
            Optional<byte[]> k = key == null ? Optional.empty() : Optional.of(Journal.readKey(invocation.path(key)));
            Ordering o;
            try {
                o = ordering != null ? Ordering.parse(ordering) : Replay.orderingOf(journalDir, k);
            } catch (IllegalArgumentException e) {
                invocation.err().println("sush: --ordering is signed or causal, not " + Client.printable(ordering));
                return 2;
            }
            out.println("ordering: " + o.wireName() + (ordering != null ? "" : " (the journal's first session "
                    + "message says so)"));
            Replay.Summary r = Replay.stream(journalDir, k, new Sled(baseboard, cubby), TrustStore.of(pems), until, o,
                    s -> out.println(s.index() + "  " + (s.record() == null ? "(damaged)" : s.record())
                            + (s.note().isEmpty() || s.note().equals("[]") ? "" : "  -> " + s.note())));
            out.println("state: " + r.state().map(f -> f.digest()).orElse("no entry"));
            return 0;
        } catch (JournalException e) {
            invocation.err().println("sush: " + e.getMessage() + " (" + e.kind() + ")");
            return 2;
        }
    }
}
