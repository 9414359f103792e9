package sush.ops.wire;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The software's version, defined once by the build (the POM's version, filtered into
 * {@code build.properties}) with the git commit it was built from ({@code git.properties}, made
 * by the build; "unknown" outside a git checkout). Shown by {@code sush version}, {@code
 * /version}, and announced by every sled.
 */
public final class Version {
    /** The POM's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static final String VERSION = read("build.properties", "version", "unknown");
    /** The abbreviated git commit, with {@code -dirty} when the tree had changes. */
    public static final String COMMIT = read("git.properties", "git.commit.id.abbrev", "unknown")
            + ("true".equals(read("git.properties", "git.dirty", "false")) ? "-dirty" : "");
    /** What a sled announces as its software: {@code VERSION+COMMIT}. */
    public static final String SOFTWARE = VERSION + "+" + COMMIT;

    private Version() {
    }

    private static String read(String resource, String key, String absent) {
        // The build writes both files beside the launcher's package (ops/pom.xml), not this one.
        try (InputStream in = Version.class.getResourceAsStream("/sush/ops/" + resource)) {
            if (in == null) {
                return absent;
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty(key, absent).strip();
            return v.isEmpty() || v.startsWith("${") ? absent : v;
        } catch (IOException e) {
            return absent;
        }
    }
}
