package sush.gossip.clock;

import java.util.Arrays;

/** A growable stack of ints: the explicit stack that replaces recursion on tree depth. */
final class IntStack {
    private int[] items;
    private int size;

    IntStack() {
        items = new int[16];
    }

    void push(int value) {
        if (size == items.length) {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size++] = value;
    }

    /** The items, bottom first. */
    int[] toArray() {
        return Arrays.copyOf(items, size);
    }

    int pop() {
        return items[--size];
    }

    int peek() {
        return items[size - 1];
    }

    /** The item {@code n} places below the top (0 is the top). */
    int peek(int n) {
        return items[size - 1 - n];
    }

    void setTop(int value) {
        items[size - 1] = value;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        size = 0;
    }
}
