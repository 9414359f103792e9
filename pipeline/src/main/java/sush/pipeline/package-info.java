/**
 * Placeholder for the {@code pipeline} module: the layout is fixed (architecture.md), its content
 * arrives with its own issue.
 */
package sush.pipeline;
