package sush.gossip.net;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 38: a rack runs without NTP, and the nemesis found a sled whose clock was two hours
 * behind its CA's cut off from its rack (every peer's certificate "not yet valid"). The rack's
 * certificates are valid from {@link RackCa#CLOCK_SKEW} before they were made.
 */
class RackCaClockTest {
    @Test
    void aSledWhoseClockIsHoursOrADayBehindStillAcceptsTheRacksCertificates(@TempDir Path dir) throws Exception {
        RackCa ca = RackCa.create(dir, "rack", new SecureRandom());
        X509Certificate sled = ca.issue("913-0000019:SKEW", Files.createDirectories(dir.resolve("sled")));
        Instant now = Instant.now();
        for (Duration behind : new Duration[] {Duration.ofHours(2), Duration.ofHours(26), Duration.ofHours(47)}) {
            Date then = Date.from(now.minus(behind));
            sled.checkValidity(then);
            ca.certificate().checkValidity(then);
        }
        assertThrows(CertificateNotYetValidException.class, () -> sled.checkValidity(Date.from(now.minus(
                RackCa.CLOCK_SKEW).minus(Duration.ofHours(1)))), "the allowance is bounded");
    }
}
