package sush.locker.store;

import java.io.IOException;

/** Another locker (this process or another) holds the slot's lock. */
public final class SlotLockedException extends IOException {
    private static final long serialVersionUID = 1L;

    public SlotLockedException(String message) {
        super(message);
    }
}
