package sush.ops;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The rules of the house (issue 37, docs/architecture.md), checked on the product's classes of
 * every module: the module arrows of {@code ../shared/design/architecture.md}, no package
 * cycles, and a pure core. A change that breaks one fails here with the offending class and
 * call, before a reviewer has to find it.
 */
class HouseRulesTest {
    /**
     * A module's test-jar (the projections' fixtures, issue 37) on the class path once it is
     * packaged: test classes, which {@link ImportOption.Predefined#DO_NOT_INCLUDE_TESTS} knows only
     * as a {@code target/test-classes} directory.
     */
    private static final Pattern TEST_JAR = Pattern.compile(".*-tests\\.jar!/.*");
    private static JavaClasses product;

    @BeforeAll
    static void importProduct() {
        product = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.matches(TEST_JAR)).importPackages("sush");
        if (product.size() < 300) {
            throw new AssertionError("only " + product.size() + " product classes found: the import is wrong");
        }
    }

    /** Each module depends only on the modules before it: gossip, projections, locker, pipeline, ops. */
    @Test
    void modulesDependOnlyOnTheModulesBeforeThem() {
        String[] order = {"gossip", "projections", "locker", "pipeline", "ops"};
        for (int i = 0; i < order.length - 1; i++) {
            String[] later = new String[order.length - 1 - i];
            for (int k = i + 1; k < order.length; k++) {
                later[k - i - 1] = "sush." + order[k] + "..";
            }
            ArchRule r = noClasses().that().resideInAPackage("sush." + order[i] + "..").should()
                    .dependOnClassesThat().resideInAnyPackage(later)
                    .because("the module arrows run gossip -> projections -> locker -> pipeline -> ops");
            r.check(product);
        }
    }

    /** No two packages use each other, directly or around a ring. */
    @Test
    void noPackageCycles() {
        slices().matching("sush.(**)").should().beFreeOfCycles().check(product);
    }

    /**
     * The pure core (the projections, the locker's admission and record) touches no clock,
     * thread, randomness or file: that is what lets replay, simulation and model checks run it.
     * It may be handed randomness (a key generator takes a {@link SecureRandom}), never make it.
     */
    @Test
    void thePureCoreTouchesNoClockThreadRandomOrFile() {
        String[] core = {"sush.projections..", "sush.locker.admission..", "sush.locker.record.."};
        noClasses().that().resideInAnyPackage(core).should().dependOnClassesThat().belongToAnyOf(Thread.class,
                ThreadLocalRandom.class, Clock.class, File.class, Files.class, Paths.class, FileChannel.class,
                FileInputStream.class, FileOutputStream.class, RandomAccessFile.class, ExecutorService.class,
                Executors.class)
                .orShould().dependOnClassesThat().belongToAnyOf(CompletableFuture.class, ForkJoinPool.class,
                        ScheduledExecutorService.class, Timer.class)
                // A thread-safe memo (the trust store's checked signatures) is allowed; making threads is not.
                .orShould().dependOnClassesThat().resideInAnyPackage("reactor.core.scheduler..", "java.nio.file..")
                .because("the pure core is replayed, simulated and model-checked (architecture.md)").check(product);
        noClasses().that().resideInAnyPackage(core).should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(Instant.class, "now")
                .orShould().callConstructor(Random.class)
                .orShould().callConstructor(Random.class, long.class)
                .orShould().callConstructor(SecureRandom.class)
                .orShould().callMethod(SecureRandom.class, "getInstanceStrong")
                .because("the pure core is given time and randomness, never takes them").check(product);
    }

    /** Verification code ships in no product jar: the model checks and test schedulers are test sources. */
    @Test
    void noVerificationCodeInTheProduct() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("reactor.test..", "org.junit..",
                "net.jqwik..").check(product);
        noClasses().should().resideInAPackage("sush.locker.model..").check(product);
    }

    /**
     * The map for newcomers ({@code docs/architecture.md}) names every product package, and
     * names no package that is gone: a room added or removed without the map fails here.
     */
    @Test
    void theMapNamesEveryRoom() throws IOException {
        Set<String> mapped = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^- `(sush(?:\\.[a-z]+)*)`:").matcher(Files.readString(Path.of("..", "docs",
                "architecture.md")));
        while (m.find()) {
            mapped.add(m.group(1));
        }
        Set<String> packages = new TreeSet<>();
        product.stream().filter(c -> !c.getSimpleName().equals("package-info")).forEach(c -> packages.add(
                c.getPackageName()));
        assertEquals(packages, mapped, "docs/architecture.md's rooms against the product's packages");
    }
}
