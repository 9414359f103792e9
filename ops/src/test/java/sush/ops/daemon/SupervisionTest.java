package sush.ops.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.pipeline.sled.SledConfig;
import sush.projections.fold.Ordering;
import sush.projections.targets.Sled;

/** Issue 16: the systemd unit and the sled config file of {@code ops/dist}. */
class SupervisionTest {
    static final Path DIST = Path.of("dist").toAbsolutePath();

    @TempDir
    Path dir;

    @Test
    void theExampleConfigReadsAsTheSettingsItNames() throws Exception {
        Daemon.Settings s = SledConfigFile.read(DIST.resolve("sled.example.json"));
        assertEquals("913-0000019:SLED0001", s.baseboard());
        assertEquals(1, s.cubby());
        assertEquals(List.of(Path.of("/m2a/sush"), Path.of("/m2b/sush")), s.m2());
        assertEquals(Map.of("10.0.0.10:7100", "10.0.0.10:7100", "10.0.0.12:7100", "10.0.0.12:7100"), s.peers());
        assertEquals("913-0000019:SLED0000", s.identities().get("10.0.0.10:7100"));
        assertEquals(Ordering.SIGNED, s.ordering());
        assertEquals(Path.of("/etc/sush/sled.crt"), s.tls().orElseThrow().cert());
        assertEquals(Optional.of(Path.of("/etc/sush/journal.key")), s.journalKey());
        // D-057: it names every sled of the rack with its cubby, so the sled forgets what they all settled.
        SledConfig.Settling settling = SledConfigFile.settling(DIST.resolve("sled.example.json")).orElseThrow();
        assertEquals(List.of(new Sled("913-0000019:SLED0000", 0), new Sled("913-0000019:SLED0001", 1),
                new Sled("913-0000019:SLED0002", 2)), settling.rack());
    }

    @Test
    void aRackOfCubbiesThatLeavesOutThisSledOrAPeerOrSharesACubbyIsRefused() throws Exception {
        String good = Files.readString(DIST.resolve("sled.example.json"));
        Path f = dir.resolve("sled.json");
        String cubbies = "\"913-0000019:SLED0000\": 0, \"913-0000019:SLED0001\": 1, \"913-0000019:SLED0002\": 2";
        for (String[] bad : new String[][] {{"\"913-0000019:SLED0001\": 1, ", "", "must name this sled"},
            {"\"913-0000019:SLED0001\": 1", "\"913-0000019:SLED0001\": 3", "must name this sled"},
            {", \"913-0000019:SLED0002\": 2", "", "does not name peer 913-0000019:SLED0002"},
            {"\"913-0000019:SLED0002\": 2", "\"913-0000019:SLED0002\": 0", "a cubby from 0 to 31 of its own"},
            {"\"913-0000019:SLED0000\": 0", "\"SLED0000\": 0", "a baseboard is part:serial"}}) {
            Files.writeString(f, good.replace(cubbies, cubbies.replace(bad[0], bad[1])));
            RackFile.RackFileException e = assertThrows(RackFile.RackFileException.class, () -> SledConfigFile.read(f),
                    bad[1]);
            assertTrue(e.getMessage().contains(bad[2]), e.getMessage());
        }
        Files.writeString(f, good.replace("  \"cubbies\": {" + cubbies + "},\n", ""));
        assertTrue(SledConfigFile.settling(f).isEmpty(), "without cubbies a sled keeps every message");
    }

    @Test
    void aConfigWithAnUnknownOrMissingOrWrongFieldIsRefusedNamingIt() throws Exception {
        String good = Files.readString(DIST.resolve("sled.example.json"));
        Path f = dir.resolve("sled.json");
        for (String[] bad : new String[][] {{"\"cubby\": 1", "\"cubby\": 1, \"cubbie\": 2", "cubbie"},
            {"\"cubby\": 1,", "", "cubby"}, {"\"ordering\": \"signed\"", "\"ordering\": \"total\"", "total"},
            {"\"m2\": [\"/m2a/sush\", \"/m2b/sush\"]", "\"m2\": [\"/m2a/sush\"]", "m2"},
            {"\"cubby\": 1", "\"cubby\": 40", "cubby"}}) {
            Files.writeString(f, good.replace(bad[0], bad[1]));
            RackFile.RackFileException e = assertThrows(RackFile.RackFileException.class, () -> SledConfigFile.read(f),
                    bad[1]);
            assertTrue(e.getMessage().contains(bad[2]), e.getMessage());
        }
        Files.writeString(f, "[1]");
        assertThrows(RackFile.RackFileException.class, () -> SledConfigFile.read(f));
    }

    @Test
    void theSystemdUnitVerifies() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        Assumptions.assumeTrue(Files.isExecutable(analyze), "systemd-analyze is not installed (.ci/run installs "
                + "systemd where it can)");
        Process p = new ProcessBuilder(analyze.toString(), "verify", DIST.resolve("sush-daemon.service").toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        // It reports unparsable lines on its output but still exits 0: there must be none.
        assertTrue(out.lines().noneMatch(l -> l.contains("sush-daemon.service")), out);
        String unit = Files.readString(DIST.resolve("sush-daemon.service"));
        assertTrue(unit.contains("Delegate=yes") && unit.contains("Restart=on-failure")
                && unit.contains("--add-opens=java.base/java.lang=ALL-UNNAMED") && unit.contains("StateDirectory=sush"),
                "the unit restarts on failure, delegates cgroups, passes the Chronicle flags, has a state directory");
    }
}
