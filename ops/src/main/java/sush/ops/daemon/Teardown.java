package sush.ops.daemon;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's resources in the order they were opened, closed in reverse (issue 37). The
 * daemon is assembled by pushing each resource as it opens; when a later step throws, everything
 * opened so far is closed, so a sled that cannot start never keeps its slot locks, threads or
 * ports. Every closer runs even when an earlier one throws; the failures are logged with the
 * resource's name, and the first is rethrown once all ran.
 */
final class Teardown implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Teardown.class);

    /** Closes one resource; may throw anything. */
    @FunctionalInterface
    interface Closer {
        void close() throws Exception;
    }

    private record Entry(String name, Closer closer) {
    }

    private final Deque<Entry> opened = new ArrayDeque<>();

    /** Remembers how to close the resource just opened. */
    synchronized void push(String name, Closer closer) {
        opened.push(new Entry(name, closer));
    }

    /** The names of the resources open now, the newest first (tests, diagnostics). */
    synchronized List<String> names() {
        return opened.stream().map(Entry::name).toList();
    }

    /** Closes everything in reverse order of opening; a second call does nothing. */
    @Override
    public void close() {
        RuntimeException first = null;
        while (true) {
            Entry e;
            synchronized (this) {
                e = opened.poll();
            }
            if (e == null) {
                break;
            }
            try {
                e.closer().close();
            } catch (Exception | Error err) {
                LOG.warn("closing {} failed: {}", e.name(), err.toString());
                if (first == null) {
                    first = new IllegalStateException("closing " + e.name() + " failed: " + err, err);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Closes everything after a failed start; a closer's failure is logged, never hides the cause. */
    void closeAfter(Throwable cause) {
        try {
            close();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }
}
