package sush.ops;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.ParsedLine;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.DefaultParser;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.shell.jline3.PicocliJLineCompleter;
import sush.ops.cli.Global;
import sush.ops.cli.Invocation;
import sush.ops.wire.Json;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush shell} (alias {@code repl}, issue 41): every command of the CLI with its own syntax
 * and exit codes, in one JVM and one login per rack (the identity cache every command shares),
 * with completion of commands, options, the session's job ids and the rack's sleds (JLine 3 and
 * picocli's completer), history in the user's state directory (0600), and {@code set url|rack|
 * json|target} for the rest of the shell. Ctrl-C stops following a command (its job goes on); at
 * the prompt it clears the line; {@code quit} or {@code exit} leave (exit 0), as does the end of
 * its input (with the last command's exit code: {@code sush shell < commands} is a script).
 */
@Command(name = "shell", aliases = "repl", description = "An interactive shell: every command, completion of commands, "
        + "options, job ids and sleds, history, `set url|rack|json|target`, `quit`. Ctrl-C stops following, never the "
        + "job.")
public final class ShellCommand implements Callable<Integer> {
    /** What {@code set} changes: the environment each command runs in. */
    /** How long the job ids and sleds offered for completion are kept before they are asked again. */
    static final long COMPLETION_CACHE_NANOS = 10_000_000_000L;
    /** How long a command Ctrl-C interrupted may take to end before the shell leaves it, muted. */
    static final long INTERRUPT_GRACE_MILLIS = 1_000;
    static final String SET_HELP = "set url URL | set rack NAME | set json on|off | set target T | set (shows them)";

    @Mixin
    Global g;

    private final Invocation invocation;
    /** The environment the next command runs in: the shell's own, changed by {@code set}. */
    private final Map<String, String> env = new HashMap<>();
    /** The default target of {@code job start|plan|sign} ({@code set target}), or null. */
    private String target;
    private final Map<String, Cached> cache = new HashMap<>();

    private record Cached(long at, List<String> values) {
    }

    ShellCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() throws IOException {
        env.putAll(invocation.env());
        // `sush shell --url U` or `--rack NAME` or `--json`: as `set` would, for the whole shell.
        g.asEnvironment().forEach((k, v) -> {
            env.remove(k.equals("SUSH_URL") ? "SUSH_RACK_NAME" : k.equals("SUSH_RACK_NAME") ? "SUSH_URL" : "");
            env.put(k, v);
        });
        Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build();
        Path history = g.stateDir().resolve("shell-history");
        Files.createDirectories(history.getParent());
        if (!Files.exists(history)) {
            Files.createFile(history, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
        }
        Completer picocli = new PicocliJLineCompleter(Main.commandLine(invocation).getCommandSpec());
        LineReader reader = LineReaderBuilder.builder().appName("sush").terminal(terminal)
                .completer((r, line, out) -> complete(picocli, r, line, out)).parser(new DefaultParser())
                .variable(LineReader.HISTORY_FILE, history).build();
        PrintStream out = new PrintStream(terminal.output(), true, StandardCharsets.UTF_8);
        out.println("sush shell: every command as on the command line; " + SET_HELP + "; quit");
        int last = 0;
        for (;;) {
            String line;
            try {
                line = reader.readLine(prompt());
            } catch (UserInterruptException e) {
                continue; // Ctrl-C at the prompt: the line goes, the shell stays
            } catch (EndOfFileException e) {
                break;
            }
            List<String> words = new ArrayList<>(reader.getParsedLine().words());
            // The parser's word at the cursor after a trailing blank is no argument; a quoted '' is.
            while (!words.isEmpty() && words.get(words.size() - 1).isEmpty() && !line.stripTrailing().endsWith("''")
                    && !line.stripTrailing().endsWith("\"\"")) {
                words.remove(words.size() - 1);
            }
            if (words.isEmpty()) {
                continue;
            }
            String first = words.get(0);
            if (first.equals("quit") || first.equals("exit")) {
                last = 0; // left on purpose; at the end of its input the shell exits as its last command did
                break;
            }
            if (first.equals("set")) {
                out.println(set(words.subList(1, words.size())));
                continue;
            }
            if (first.equals("shell") || first.equals("repl")) {
                out.println("sush: already in the shell");
                continue;
            }
            last = run(terminal, withTarget(words), out);
        }
        reader.getHistory().save();
        terminal.close();
        return last;
    }

    private String prompt() {
        String where = env.containsKey("SUSH_RACK_NAME") ? env.get("SUSH_RACK_NAME")
                : env.getOrDefault("SUSH_URL", "http://127.0.0.1:7200");
        return "sush " + where + "> ";
    }

    /** {@code set ...}: what it set, or what is set. */
    String set(List<String> a) {
        if (a.size() == 2 && a.get(0).equals("url")) {
            env.put("SUSH_URL", a.get(1));
            env.remove("SUSH_RACK_NAME");
            return "url " + a.get(1);
        } else if (a.size() == 2 && a.get(0).equals("rack")) {
            env.put("SUSH_RACK_NAME", a.get(1));
            env.remove("SUSH_URL");
            return "rack " + a.get(1);
        } else if (a.size() == 2 && a.get(0).equals("json") && (a.get(1).equals("on") || a.get(1).equals("off"))) {
            if (a.get(1).equals("on")) {
                env.put("SUSH_JSON", "1");
            } else {
                env.remove("SUSH_JSON");
            }
            return "json " + a.get(1);
        } else if (a.size() == 2 && a.get(0).equals("target")) {
            target = a.get(1);
            return "target " + target + " (job start, plan and sign, unless --target)";
        } else if (a.isEmpty()) {
            return "url " + env.getOrDefault("SUSH_URL", "-") + ", rack " + env.getOrDefault("SUSH_RACK_NAME", "-")
                    + ", json " + (env.containsKey("SUSH_JSON") ? "on" : "off") + ", target " + (target == null ? "*"
                            : target);
        }
        return "sush: " + SET_HELP;
    }

    /** {@code words} with {@code --target} of {@code set target} after {@code job start|plan|sign}, unless given. */
    List<String> withTarget(List<String> words) {
        if (target == null || words.size() < 2 || !words.get(0).equals("job")
                || !List.of("start", "plan", "sign").contains(words.get(1))) {
            return words;
        }
        int end = words.indexOf("--");
        List<String> options = end < 0 ? words : words.subList(0, end);
        if (options.stream().anyMatch(w -> w.equals("--target") || w.startsWith("--target="))) {
            return words;
        }
        List<String> out = new ArrayList<>(words.subList(0, 2));
        out.add("--target");
        out.add(target);
        out.addAll(words.subList(2, words.size()));
        return out;
    }

    /**
     * Runs one command line on a thread of its own; Ctrl-C interrupts it, and a command still
     * reading after a second (an HTTP stream does not always heed an interrupt) is left to end by
     * itself with its output muted: the shell stops following, the job goes on. Its exit code,
     * said when it is not 0.
     */
    private int run(Terminal terminal, List<String> words, PrintStream out) {
        Muted o = new Muted(invocation.out());
        Muted e = new Muted(invocation.err());
        Invocation inv = new Invocation(Map.copyOf(env), invocation.cwd(), invocation.in(), new PrintStream(o, true,
                StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8), invocation.console());
        int[] exit = {1};
        Thread t = new Thread(() -> exit[0] = Main.run(inv, words.toArray(new String[0])), "sush-shell-command");
        t.setDaemon(true);
        AtomicBoolean stop = new AtomicBoolean();
        Terminal.SignalHandler before = terminal.handle(Terminal.Signal.INT, sig -> {
            stop.set(true);
            t.interrupt();
        });
        t.start();
        try {
            while (t.isAlive() && !stop.get()) {
                t.join(100);
            }
            if (stop.get()) {
                t.join(INTERRUPT_GRACE_MILLIS);
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } finally {
            terminal.handle(Terminal.Signal.INT, before);
        }
        if (t.isAlive() || (stop.get() && exit[0] == 130)) {
            o.mute();
            e.mute();
            out.println("[stopped following; anything started goes on]");
            return 130;
        }
        if (exit[0] != 0) {
            out.println("[exit " + exit[0] + "]");
        }
        return exit[0];
    }

    /** An output a command left running writes nothing to, once muted. */
    private static final class Muted extends OutputStream {
        private final OutputStream to;
        private volatile boolean muted;

        Muted(OutputStream to) {
            this.to = to;
        }

        void mute() {
            muted = true;
        }

        @Override
        public void write(int b) throws IOException {
            if (!muted) {
                to.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (!muted) {
                to.write(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            if (!muted) {
                to.flush();
            }
        }
    }

    /** Picocli's completion, and the session's job ids and the rack's sleds where one goes. */
    private void complete(Completer picocli, LineReader r, ParsedLine line, List<Candidate> out) {
        picocli.complete(r, line, out);
        List<String> w = line.words().subList(0, line.wordIndex());
        String before = w.isEmpty() ? "" : w.get(w.size() - 1);
        if (before.equals("--target") || before.equals("--sled")) {
            values("sleds", () -> fetch(List.of("--json", "version"), "baseboard")).forEach(v -> out.add(
                    new Candidate(v)));
        } else if (w.size() >= 2 && w.get(0).equals("job") && List.of("status", "output", "stop", "attach", "skip")
                .contains(w.get(1)) && !before.startsWith("-")) {
            values("jobs", () -> fetch(List.of("--json", "job", "history"), "job_id")).forEach(v -> out.add(
                    new Candidate(v)));
        }
    }

    /** {@code what}, fetched at most every 10 s. */
    private List<String> values(String what, Supplier<List<String>> fetch) {
        Cached c = cache.get(what + env);
        long now = System.nanoTime();
        if (c == null || now - c.at() > COMPLETION_CACHE_NANOS) {
            c = new Cached(now, fetch.get());
            cache.put(what + env, c);
        }
        return c.values();
    }

    /** Runs {@code args} here, quietly, and gathers every value of {@code field} in its JSON. */
    private List<String> fetch(List<String> args, String field) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        PrintStream p = new PrintStream(o, true, StandardCharsets.UTF_8);
        Main.run(new Invocation(Map.copyOf(env), invocation.cwd(), InputStream.nullInputStream(), p, quiet, false),
                args.toArray(new String[0]));
        Map<String, Boolean> seen = new LinkedHashMap<>();
        try {
            JsonNode n = Json.MAPPER.readTree(o.toString(StandardCharsets.UTF_8));
            n.findValues(field).forEach(v -> {
                if (v.isString()) {
                    seen.put(v.asString(), true);
                }
            });
        } catch (RuntimeException e) {
            // nothing to offer: the sled did not answer, or not with JSON
        }
        return List.copyOf(seen.keySet());
    }
}
