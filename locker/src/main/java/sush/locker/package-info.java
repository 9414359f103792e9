/**
 * Placeholder for the {@code locker} module: the layout is fixed (architecture.md), its content
 * arrives with its own issue.
 */
package sush.locker;
