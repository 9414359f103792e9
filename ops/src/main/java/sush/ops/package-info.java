/**
 * Placeholder for the {@code ops} module: the layout is fixed (architecture.md), its content
 * arrives with its own issue.
 */
package sush.ops;
