package sush.ops.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What ran (issue 38), as the jobs themselves wrote it: one line {@code JOB sledNN PID NANOS TAG}
 * per execution, appended by the job's own shell to a file outside every sled's folders (an
 * append of one short line is atomic). Nothing a daemon says is in it.
 */
final class Ledger {
    /**
     * One execution: which job, on which sled (index), its shell's pid, when (that sled's clock,
     * ns), and the tag of the request that ran (two requests for one position share the job id).
     */
    record Execution(String job, int sled, long pid, long startNanos, String tag, String line) {
    }

    private final Path file;

    Ledger(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    /** Every execution so far; a line that does not parse is kept as one of sled -1 (and said by the checkers). */
    List<Execution> read() throws IOException {
        List<Execution> out = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return out;
        }
        for (String line : lines) {
            String[] f = line.trim().split(" ");
            try {
                out.add(new Execution(f[0], Integer.parseInt(f[1].substring("sled".length())), Long.parseLong(f[2]),
                        Long.parseLong(f[3]), f[4], line));
            } catch (RuntimeException e) {
                out.add(new Execution(f.length > 0 ? f[0] : "", -1, 0, 0, "", line));
            }
        }
        return out;
    }
}
