package sush.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import picocli.CommandLine.Model.CommandSpec;

/**
 * The client's global options (interfaces.md, "CLI client": {@code --url}, {@code --json},
 * {@code --key}; {@code --rack NAME}, issue 41) are accepted before the subcommand as well as
 * after it: given before, or between the words of the subcommand, they are moved to just after
 * its last word, where every client command takes them (its {@code Global} mixin). Nothing after the subcommand's
 * words moves, so a job's own arguments ({@code -- CMD ...}) are never touched. A command that
 * does not take an option still refuses it by name.
 */
final class GlobalOptions {
    /** Options with a value, and flags. */
    static final Set<String> WITH_VALUE = Set.of("--url", "--key", "--rack");
    static final Set<String> FLAGS = Set.of("--json");

    private GlobalOptions() {
    }

    /** {@code args} with the global options given before or among the subcommand's words moved after them. */
    static String[] hoist(CommandSpec root, String[] args) {
        List<String> moved = new ArrayList<>();
        List<String> path = new ArrayList<>();
        CommandSpec at = root;
        int i = 0;
        while (i < args.length) {
            String a = args[i];
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (FLAGS.contains(a) || (WITH_VALUE.contains(name) && a.contains("="))) {
                moved.add(a);
                i++;
            } else if (WITH_VALUE.contains(a) && i + 1 < args.length) {
                moved.add(a);
                moved.add(args[i + 1]);
                i += 2;
            } else if (at.subcommands().containsKey(a)) {
                path.add(a);
                at = at.subcommands().get(a).getCommandSpec();
                i++;
            } else {
                break;
            }
        }
        if (moved.isEmpty() || path.isEmpty()) {
            return args;
        }
        List<String> out = new ArrayList<>(path);
        out.addAll(moved);
        for (int k = i; k < args.length; k++) {
            out.add(args[k]);
        }
        return out.toArray(new String[0]);
    }
}
