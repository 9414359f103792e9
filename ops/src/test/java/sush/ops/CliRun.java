package sush.ops;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

/** Test fixture: one command line of the CLI in this JVM, its exit code and what it printed. */
record CliRun(int exit, String out, String err) {
    static CliRun of(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true));
        System.setErr(new PrintStream(e, true));
        try {
            return new CliRun(Main.run(args), o.toString(), e.toString());
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    /** The last line printed: a {@code --json} command's document. */
    String lastLine() {
        return out.strip().lines().reduce((a, b) -> b).orElse("");
    }
}
