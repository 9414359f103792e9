/**
 * Placeholder for the {@code projections} module: the layout is fixed (architecture.md), its content
 * arrives with its own issue.
 */
package sush.projections;
