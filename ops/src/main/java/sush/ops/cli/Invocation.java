package sush.ops.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.Map;

import picocli.CommandLine;
import picocli.CommandLine.IFactory;

/**
 * What one run of the CLI reads of the world it runs in (issue 37): the environment, the working
 * directory relative paths are resolved against, standard input, output and error, and whether a
 * terminal is attached. {@link #system()} is the process's own; a test gives its own and runs the
 * CLI in its JVM. Every command is given it when picocli makes the command ({@link #factory()}),
 * so no command reads {@code System.getenv}, {@code System.out} or the process's directory. The
 * daemon and the simulator are long-running parts of the process itself, and print on its streams.
 *
 * @param env the environment variables ({@code SUSH_URL}, {@code SUSH_SIGNER_KEY}, {@code XDG_CACHE_HOME}...)
 * @param cwd the directory relative paths are resolved against; the process's is the empty path,
 *        which leaves them as the operator gave them (the file system resolves them as before)
 * @param in standard input (an interactive job's keystrokes)
 * @param out standard output
 * @param err standard error
 * @param console whether a terminal is attached (the process's: {@code System.console() != null})
 */
public record Invocation(Map<String, String> env, Path cwd, InputStream in, PrintStream out, PrintStream err,
        boolean console) {
    /** The process's own: its environment, its working directory, {@code System.in/out/err}, its console. */
    public static Invocation system() {
        return new Invocation(System.getenv(), Path.of(""), System.in, System.out, System.err,
                System.console() != null);
    }

    /** The environment variable {@code name}, or null when it is not set. */
    String getenv(String name) {
        return env.get(name);
    }

    /** {@code p} as the operator meant it: a relative path against {@link #cwd()}; null stays null. */
    Path path(Path p) {
        return p == null ? null : cwd.resolve(p);
    }

    /** A path named in text (an environment variable's value), as {@link #path(Path)}. */
    Path path(String p) {
        return cwd.resolve(Path.of(p));
    }

    /**
     * Standard output for bytes as they arrive (a streaming job's output): the process's file
     * descriptor 1 itself when {@link #out()} is the process's (a failed write is an error there,
     * which a {@link PrintStream} would swallow), else {@link #out()}.
     */
    OutputStream rawOut() {
        return out == System.out ? new FileOutputStream(FileDescriptor.out) : out;
    }

    /**
     * Prints {@code command}'s usage as {@code CommandLine.usage(command, System.out)} does (the
     * command on its own, not as a subcommand of {@code sush}), to {@link #out()}.
     */
    void usage(Object command) {
        new CommandLine(command, factory()).usage(out);
    }

    /**
     * The picocli factory that gives this invocation to every command and mixin made with a
     * constructor taking one; any other class is made by picocli's own factory.
     */
    public IFactory factory() {
        return new Factory(this);
    }

    /** {@link Invocation#factory()}: a class's {@code (Invocation)} constructor when it has one. */
    private static final class Factory implements IFactory {
        private final Invocation invocation;

        Factory(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public <K> K create(Class<K> cls) throws Exception {
            Constructor<K> given;
            try {
                given = cls.getDeclaredConstructor(Invocation.class);
            } catch (NoSuchMethodException e) {
                return CommandLine.defaultFactory().create(cls);
            }
            given.setAccessible(true);
            return given.newInstance(invocation);
        }
    }
}
