package sush.ops.daemon;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import sush.locker.store.Locker;

/**
 * Watches the directories of the boundary slots (issue 22). On any change there the locker
 * compares every slot with what it last read or wrote ({@link Locker#verify()}); a change it did
 * not make (a job, or a person, wrote the M.2 file) is reported at once, and the store is
 * untrusted for the rest of the life: the sled refuses every later job, as the next load would.
 * A watch that cannot be set up (or that overflows) falls back to checking on every event and
 * at each {@link #POLL}, so a change is never missed for long.
 */
public final class SlotWatch implements Closeable {
    /** How often the slots are compared even without an event (a missed or overflowed event). */
    static final Duration POLL = Duration.ofSeconds(5);

    private final WatchService watch;
    private final Thread thread;
    private volatile boolean closed;

    private SlotWatch(WatchService watch, Locker<?> locker, Consumer<String> changed) {
        this.watch = watch;
        this.thread = new Thread(() -> run(locker, changed), "sush-slot-watch");
        this.thread.setDaemon(true);
    }

    /** Starts watching {@code dirs} (the slot directories) for {@code locker}. */
    public static SlotWatch start(List<Path> dirs, Locker<?> locker, Consumer<String> changed) throws IOException {
        WatchService w = FileSystems.getDefault().newWatchService();
        for (Path d : dirs) {
            try {
                d.register(w, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
            } catch (IOException e) {
                // A slot directory that is gone: the load already judged it; the poll still checks.
            }
        }
        SlotWatch s = new SlotWatch(w, locker, changed);
        s.thread.start();
        return s;
    }

    private void run(Locker<?> locker, Consumer<String> changed) {
        while (!closed) {
            WatchKey key;
            try {
                key = watch.poll(POLL.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            if (key != null) {
                key.pollEvents();
                key.reset();
            }
            // Found here, or by a store that checked the slots before writing (it fails closed and
            // leaves the finding for this watch to report).
            Optional<String> finding = locker.verify().or(locker::changed);
            if (finding.isPresent()) {
                changed.accept(finding.get());
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            watch.close();
        } catch (IOException e) {
            // Closing a watch fails only if it is already closed.
        }
        thread.interrupt();
    }
}
