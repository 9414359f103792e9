package sush.ops.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code sush man --dir DIR}: one man page (section 1, roff) per command, written from the live
 * command tree, so they never fall behind the options. The build writes them to
 * {@code ops/target/man} (D-033); {@code man -l ops/target/man/sush-job-output.1} reads one,
 * {@code MANPATH} takes the directory's parent.
 */
@Command(name = "man", description = "Write a man page (section 1, roff) for every command into a directory: "
        + "`man -l DIR/sush-job-start.1`.")
public final class ManCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "where the pages are written "
            + "(created if missing; existing pages are replaced)")
    Path dir;

    /** Where this command runs: its streams, and the directory its paths are relative to. */
    private final Invocation invocation;

    ManCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        try {
            int n = write(spec.root(), invocation.path(dir));
            invocation.out().println(n + " man pages written to " + dir);
            return 0;
        } catch (IOException e) {
            invocation.err().println("sush man: cannot write " + dir + ": " + e.getMessage());
            return 1;
        }
    }

    /** Writes the page of {@code root} and of every command below it; how many. */
    public static int write(CommandSpec root, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<CommandSpec> all = new ArrayList<>();
        collect(root, all);
        for (CommandSpec c : all) {
            Files.writeString(dir.resolve(pageName(c) + ".1"), page(c, root), StandardCharsets.UTF_8);
        }
        return all.size();
    }

    private static void collect(CommandSpec c, List<CommandSpec> out) {
        if (c.usageMessage().hidden()) {
            return;
        }
        out.add(c);
        for (CommandLine sub : c.subcommands().values()) {
            if (!out.contains(sub.getCommandSpec())) {
                collect(sub.getCommandSpec(), out);
            }
        }
    }

    /** {@code sush-job-output} for {@code sush job output}. */
    static String pageName(CommandSpec c) {
        return c.qualifiedName("-");
    }

    /** One page: name, synopsis, description, options, arguments, commands, exit status, see also. */
    static String page(CommandSpec c, CommandSpec root) {
        StringBuilder b = new StringBuilder();
        String name = pageName(c);
        String version = root.version().length > 0 ? root.version()[0] : "sush";
        b.append(".TH \"").append(name.toUpperCase(Locale.ROOT)).append("\" \"1\" \"\" \"")
                .append(escape(version)).append("\" \"sush manual\"\n");
        b.append(".SH NAME\n").append(escape(name)).append(" \\- ").append(escape(firstSentence(description(c))))
                .append('\n');
        b.append(".SH SYNOPSIS\n.nf\n").append(text(c.commandLine().getHelp().synopsis(0).strip())).append("\n.fi\n");
        if (!description(c).isEmpty()) {
            b.append(".SH DESCRIPTION\n").append(text(description(c))).append('\n');
        }
        List<OptionSpec> options = c.options().stream().filter(o -> !o.hidden()).toList();
        if (!options.isEmpty()) {
            b.append(".SH OPTIONS\n");
            for (OptionSpec o : options) {
                b.append(".TP\n");
                List<String> names = new ArrayList<>();
                for (String n : o.names()) {
                    String label = o.typeInfo().isBoolean() || o.arity().max() == 0 ? ""
                            : (n.startsWith("--") ? "=" : " ") + "\\fI" + escape(o.paramLabel()) + "\\fR";
                    names.add("\\fB" + escape(n) + "\\fR" + label);
                }
                b.append(String.join(", ", names)).append('\n').append(text(String.join(" ", o.description())))
                        .append('\n');
            }
        }
        List<PositionalParamSpec> params = c.positionalParameters().stream().filter(p -> !p.hidden()).toList();
        if (!params.isEmpty()) {
            b.append(".SH ARGUMENTS\n");
            for (PositionalParamSpec p : params) {
                b.append(".TP\n\\fI").append(escape(p.paramLabel())).append("\\fR\n")
                        .append(text(String.join(" ", p.description()))).append('\n');
            }
        }
        List<CommandSpec> subs = c.subcommands().values().stream().map(CommandLine::getCommandSpec)
                .filter(s -> !s.usageMessage().hidden()).distinct().toList();
        if (!subs.isEmpty()) {
            b.append(".SH COMMANDS\n");
            for (CommandSpec s : subs) {
                b.append(".TP\n\\fB").append(escape(s.name())).append("\\fR\n").append(text(description(s)))
                        .append(" See \\fB").append(escape(pageName(s))).append("\\fR(1).\n");
            }
        }
        // The root's footer: the global options and the exit codes, the same for every command.
        String[] footer = root.usageMessage().footer();
        if (footer.length > 0) {
            b.append(".SH \"GLOBAL OPTIONS AND EXIT STATUS\"\n.nf\n");
            for (String line : footer) {
                b.append(text(line.isEmpty() ? " " : line)).append('\n');
            }
            b.append(".fi\n");
        }
        b.append(".SH \"SEE ALSO\"\n");
        List<String> see = new ArrayList<>();
        if (c.parent() != null) {
            see.add("\\fB" + escape(pageName(c.parent())) + "\\fR(1)");
        }
        subs.forEach(s -> see.add("\\fB" + escape(pageName(s)) + "\\fR(1)"));
        if (see.isEmpty()) {
            see.add("the README of the sush repository");
        }
        b.append(String.join(", ", see)).append('\n');
        return b.toString();
    }

    private static String description(CommandSpec c) {
        return String.join(" ", c.usageMessage().description()).strip();
    }

    private static String firstSentence(String s) {
        int dot = s.indexOf(". ");
        return dot < 0 ? (s.endsWith(".") ? s.substring(0, s.length() - 1) : s) : s.substring(0, dot);
    }

    /** Running text: escaped, and no line may begin with a control character. */
    private static String text(String s) {
        StringBuilder b = new StringBuilder();
        for (String line : s.split("\n", -1)) {
            String e = escape(line);
            if (e.startsWith(".") || e.startsWith("'")) {
                e = "\\&" + e;
            }
            b.append(b.length() == 0 ? "" : "\n").append(e);
        }
        return b.toString();
    }

    /** A roff-safe string: backslashes doubled as {@code \e}, hyphens of options kept as minus signs. */
    static String escape(String s) {
        return s.replace("\\", "\\e").replace("-", "\\-").replace("%n", " ");
    }
}
