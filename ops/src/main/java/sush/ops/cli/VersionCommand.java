package sush.ops.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import sush.ops.wire.Version;
import sush.ops.wire.Versions;

/**
 * {@code sush version}: the client, every sled known by gossip, and the rack drawn as it stands:
 * two columns of 16 cubbies (0-15 on the left, 16-31 on the right, top down), each with its
 * sled's baseboard and build, {@code !} where the build differs from the client's.
 */
@Command(name = "version", description = "Show the client's and every sled's version, and the rack by cubby.")
public final class VersionCommand implements Callable<Integer> {
    @Mixin
    Global g;

    @Override
    public Integer call() {
        try {
            List<Versions.Sled> sleds = g.client().get("/versions", Versions.class).sleds();
            Map<Integer, String> byCubby = new TreeMap<>();
            List<String> differing = new ArrayList<>();
            sleds.forEach(s -> {
                String software = Said.text(s.software());
                byCubby.put(Said.number(s.cubby()), (software.equals(Version.SOFTWARE) ? "" : "!")
                        + Said.text(s.baseboard()) + " " + software);
                if (!software.equals(Version.SOFTWARE)) {
                    differing.add(Client.printable(Said.text(s.baseboard())) + " runs " + Client.printable(software));
                }
            });
            StringBuilder b = new StringBuilder("client " + Version.SOFTWARE + "\n");
            b.append(draw(byCubby));
            if (!differing.isEmpty()) {
                b.append("! a build other than the client's (").append(Version.SOFTWARE).append("):\n");
                differing.forEach(d -> b.append("  ").append(d).append('\n'));
            }
            g.print(Map.of("client", Version.SOFTWARE, "version", Version.VERSION, "commit",
                    Version.COMMIT, "sleds", sleds, "differing", differing), b.toString().stripTrailing());
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }

    /** Cubbies in a column of the rack; two columns. */
    static final int CUBBIES_PER_COLUMN = 16;
    /** Characters of a cubby's text in the drawing. */
    static final int CELL_CHARS = 34;

    /** The rack as it stands: row r holds cubby r (left) and cubby r + 16 (right); {@code .} is an empty cubby. */
    static String draw(Map<Integer, String> byCubby) {
        StringBuilder b = new StringBuilder();
        for (int row = 0; row < CUBBIES_PER_COLUMN; row++) {
            b.append(cell(row, byCubby.get(row))).append("  ").append(cell(row + CUBBIES_PER_COLUMN,
                    byCubby.get(row + CUBBIES_PER_COLUMN))).append('\n');
        }
        return b.toString();
    }

    private static String cell(int cubby, String text) {
        String t = text == null ? "." : Client.printable(text);
        return String.format(Locale.ROOT, "[%2d %-" + CELL_CHARS + "s]", cubby,
                t.length() > CELL_CHARS ? t.substring(0, CELL_CHARS) : t);
    }
}
