package sush.ops.daemon;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;

/**
 * The daemon's logging (issue 16): one line per event, human by default or JSON lines
 * (Logback's own {@link JsonEncoder}), to standard output (systemd's journal takes it), INFO
 * unless a package's level is given. Job command text and output never appear at INFO.
 */
public final class Logs {
    /** How log lines look. */
    public enum Format {
        HUMAN, JSON
    }

    /** The human line: time, level, logger, message. */
    static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{24} - %msg%n%ex{short}";

    /** Quiet libraries unless asked: their INFO lines are not the operator's. */
    static final Map<String, Level> DEFAULTS = Map.of("io.netty", Level.WARN, "reactor", Level.WARN,
            "net.openhft", Level.WARN, "io.scalecube", Level.WARN,
            // Its WARN is a stack trace per failed connection (a peer's TLS refused, a partition);
            // the relay and the announced-address probe say each failure in one typed line.
            "reactor.netty.http.client.HttpClientConnect", Level.ERROR);

    private Logs() {
    }

    /** Parses {@code --log-level}: {@code LEVEL} for the root, or {@code PACKAGE=LEVEL}, comma-separated. */
    public static Map<String, Level> levels(String spec) {
        Map<String, Level> out = new LinkedHashMap<>();
        if (spec == null || spec.isBlank()) {
            return out;
        }
        for (String part : spec.split(",")) {
            String p = part.strip();
            int eq = p.indexOf('=');
            String name = eq < 0 ? Logger.ROOT_LOGGER_NAME : p.substring(0, eq).strip();
            String level = (eq < 0 ? p : p.substring(eq + 1)).strip().toUpperCase(Locale.ROOT);
            Level l = Level.toLevel(level, null);
            if (l == null || name.isEmpty()) {
                throw new IllegalArgumentException("log level " + p + ": give LEVEL or PACKAGE=LEVEL (TRACE, DEBUG, "
                        + "INFO, WARN, ERROR, OFF)");
            }
            out.put(name, l);
        }
        return out;
    }

    /**
     * The CLI's logging, as {@code logback.xml} has it: library warnings and errors to standard
     * error only, so that a command's standard output holds only what it prints.
     */
    public static void cli() {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        PatternLayoutEncoder human = new PatternLayoutEncoder();
        human.setContext(ctx);
        human.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{30} - %msg%n");
        human.start();
        ConsoleAppender<ILoggingEvent> err = new ConsoleAppender<>();
        err.setContext(ctx);
        err.setName("stderr");
        err.setTarget("System.err");
        err.setEncoder(human);
        err.start();
        Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(err);
        root.setLevel(Level.WARN);
    }

    /** Replaces whatever configuration logging had with the daemon's. */
    public static void configure(Format format, Map<String, Level> levels) {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        Encoder<ILoggingEvent> encoder;
        if (format == Format.JSON) {
            JsonEncoder json = new JsonEncoder();
            json.setContext(ctx);
            // One readable field per line: the message as formatted, not its pattern and arguments.
            json.setWithFormattedMessage(true);
            json.setWithMessage(false);
            json.setWithArguments(false);
            json.start();
            encoder = json;
        } else {
            PatternLayoutEncoder human = new PatternLayoutEncoder();
            human.setContext(ctx);
            human.setPattern(PATTERN);
            human.start();
            encoder = human;
        }
        ConsoleAppender<ILoggingEvent> out = new ConsoleAppender<>();
        out.setContext(ctx);
        out.setName("stdout");
        out.setEncoder(encoder);
        out.start();
        Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(out);
        root.setLevel(Level.INFO);
        DEFAULTS.forEach((name, level) -> ctx.getLogger(name).setLevel(level));
        levels.forEach((name, level) -> ctx.getLogger(name).setLevel(level));
    }
}
