package sush.ops;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** Test fixture: a 2-sled rack of real daemons in this JVM, one per test class, converged before the tests. */
abstract class TwoSledRack {
    @TempDir
    static Path dir;
    static LocalRack rack;

    @BeforeAll
    static void up() throws Exception {
        rack = new LocalRack(dir, 2);
        rack.converge();
    }

    @AfterAll
    static void down() {
        rack.close();
    }
}
