package sush.gossip.net;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;


/**
 * The rack's certificate authority (security.md section 1): an ECDSA P-256 key and a self-signed
 * CA certificate, and per-sled certificates it issues, each naming its sled's baseboard in the
 * subject and as the SAN URI {@code sush:sled:<baseboard>}, for client and server use, valid for
 * a bounded time. Keys are written PKCS#8 PEM with mode 0600; certificates PEM with 0644.
 * P-256 rather than Ed25519: every TLS 1.3 stack speaks it.
 */
public final class RackCa {
    /** File names inside a rack directory (the CA) and inside a sled's TLS directory. */
    public static final String CA_CERT = "ca.crt";
    public static final String CA_KEY = "ca.key";
    public static final String REVOKED = "revoked.txt";
    public static final String SLED_CERT = "sled.crt";
    public static final String SLED_KEY = "sled.key";
    public static final Duration CA_VALIDITY = Duration.ofDays(3650);
    public static final Duration SLED_VALIDITY = Duration.ofDays(365);
    /**
     * How far back a certificate's validity starts (issue 38): a rack runs without NTP, and a sled
     * whose clock was two hours behind the CA's refused every peer's certificate as not yet
     * valid, cut off from its rack. Two days behind is tolerated; a fresh key gains nothing by
     * a later start.
     */
    public static final Duration CLOCK_SKEW = Duration.ofDays(2);

    /** The CA's record of the last generation issued to each baseboard (issue 36): {@code BOARD N} lines. */
    public static final String GENERATIONS = "generations.txt";

    private final X509Certificate cert;
    private final PrivateKey key;
    private final SecureRandom random;
    private final Path dir;

    private RackCa(X509Certificate cert, PrivateKey key, SecureRandom random, Path dir) {
        this.cert = cert;
        this.key = key;
        this.random = random;
        this.dir = dir;
    }

    /** A problem with the CA or its files, in one line. */
    public static final class CaException extends Exception {
        private static final long serialVersionUID = 1L;

        public CaException(String message) {
            super(message);
        }
    }

    /** Makes a CA and writes it under {@code dir} ({@value #CA_CERT}, {@value #CA_KEY}, an empty revocation list). */
    public static RackCa create(Path dir, String rackName, SecureRandom random) throws CaException {
        try {
            KeyPair kp = p256(random);
            X500Name name = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "sush")
                    .addRDN(BCStyle.CN, "rack CA " + rackName).build();
            Instant now = Instant.now();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(random),
                    Date.from(now.minus(CLOCK_SKEW)), Date.from(now.plus(CA_VALIDITY)), name, kp.getPublic());
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
            X509Certificate cert = sign(b, kp.getPrivate());
            Files.createDirectories(dir);
            writeKey(dir.resolve(CA_KEY), kp.getPrivate());
            writeCertificate(dir.resolve(CA_CERT), cert);
            if (!Files.exists(dir.resolve(REVOKED))) {
                Files.writeString(dir.resolve(REVOKED), "# revoked sled certificate serials (hex), one per line\n");
            }
            return new RackCa(cert, kp.getPrivate(), random, dir);
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new CaException("cannot make a rack CA in " + dir + ": " + e.getMessage());
        }
    }

    /** Loads the CA written by {@link #create} in {@code dir}. */
    public static RackCa load(Path dir, SecureRandom random) throws CaException {
        try {
            return new RackCa(GossipTls.readCertificate(dir.resolve(CA_CERT)), GossipTls.readKey(dir.resolve(CA_KEY)),
                    random, dir);
        } catch (GossipTls.TlsException e) {
            throw new CaException(e.getMessage());
        }
    }

    public X509Certificate certificate() {
        return cert;
    }

    /**
     * Issues a certificate for sled {@code baseboard} valid from {@code notBefore} for {@code
     * validity} with a fresh key, and writes both into {@code sledDir} ({@value #SLED_CERT},
     * {@value #SLED_KEY}). Returns the certificate.
     */
    public X509Certificate issue(String baseboard, Path sledDir, Instant notBefore, Duration validity)
            throws CaException {
        if (baseboard.isEmpty() || baseboard.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw new CaException("a baseboard is printable ASCII without spaces, not '" + baseboard + "'");
        }
        try {
            // Each certificate of a baseboard has a higher generation than the last (issue 36): a
            // revocation by baseboard names every one issued up to then, never a later one.
            long generation = lastGeneration(dir, baseboard) + 1;
            recordGeneration(dir, baseboard, generation);
            KeyPair kp = p256(random);
            X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "sush")
                    .addRDN(BCStyle.CN, baseboard).build();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(cert, serial(random), Date.from(notBefore),
                    Date.from(notBefore.plus(validity)), subject, kp.getPublic());
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(new KeyPurposeId[] {
                KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {new GeneralName(
                    GeneralName.uniformResourceIdentifier, GossipTls.SLED_URI + baseboard), new GeneralName(
                            GeneralName.uniformResourceIdentifier, GossipTls.GENERATION_URI + generation)}));
            b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
            b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(cert));
            X509Certificate issued = sign(b, key);
            Files.createDirectories(sledDir);
            writeKey(sledDir.resolve(SLED_KEY), kp.getPrivate());
            writeCertificate(sledDir.resolve(SLED_CERT), issued);
            return issued;
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new CaException("cannot issue a certificate for " + baseboard + ": " + e.getMessage());
        }
    }

    /** Issues for the default validity, from {@link #CLOCK_SKEW} before now. */
    public X509Certificate issue(String baseboard, Path sledDir) throws CaException {
        return issue(baseboard, sledDir, Instant.now().minus(CLOCK_SKEW), SLED_VALIDITY);
    }

    /**
     * The last generation the CA in {@code rackDir} issued to {@code baseboard}: 0 when it
     * issued none with a generation (certificates of older builds count as generation 0).
     */
    public static long lastGeneration(Path rackDir, String baseboard) throws IOException {
        Path f = rackDir.resolve(GENERATIONS);
        if (!Files.exists(f)) {
            return 0;
        }
        long last = 0;
        for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
            String[] p = line.strip().split("\\s+");
            if (p.length == 2 && p[0].equals(baseboard)) {
                try {
                    last = Math.max(last, Long.parseLong(p[1]));
                } catch (NumberFormatException e) {
                    throw new IOException(f + ": not a generation: " + line);
                }
            }
        }
        return last;
    }

    private static void recordGeneration(Path rackDir, String baseboard, long generation) throws IOException {
        Files.writeString(rackDir.resolve(GENERATIONS), baseboard + " " + generation + "\n", StandardCharsets.US_ASCII,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                StandardOpenOption.SYNC);
    }

    /**
     * Revokes every certificate the CA issued to {@code baseboard} up to now (issue 36): a line
     * {@code sled BOARD up-to N} in the rack's revocation list, N the last generation issued.
     * Returns N. A certificate issued after this has a higher generation and is accepted.
     */
    public static long revokeSled(Path rackDir, String baseboard) throws CaException {
        if (baseboard.isEmpty() || baseboard.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw new CaException("a baseboard is printable ASCII without spaces, not '" + baseboard + "'");
        }
        try {
            long upTo = lastGeneration(rackDir, baseboard);
            Files.writeString(rackDir.resolve(REVOKED), GossipTls.SLED_REVOCATION + " " + baseboard + " up-to " + upTo
                    + "\n", StandardCharsets.US_ASCII, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.SYNC);
            return upTo;
        } catch (IOException e) {
            throw new CaException("cannot revoke sled " + baseboard + ": " + e.getMessage());
        }
    }

    /** Revokes one certificate by its serial ({@code rack revoke --serial}). */
    public static void revokeSerial(Path rackDir, BigInteger serial) throws CaException {
        try {
            Files.writeString(rackDir.resolve(REVOKED), serial.toString(16) + "\n", StandardCharsets.US_ASCII,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new CaException("cannot revoke serial " + serial.toString(16) + ": " + e.getMessage());
        }
    }

    /** Appends the serial of the certificate in {@code sledCert} to the rack's revocation list. */
    public static BigInteger revoke(Path rackDir, Path sledCert) throws CaException {
        try {
            X509Certificate c = GossipTls.readCertificate(sledCert);
            Files.writeString(rackDir.resolve(REVOKED), c.getSerialNumber().toString(16) + "  # "
                    + GossipTls.identity(c).orElse("?") + "\n", StandardCharsets.US_ASCII,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return c.getSerialNumber();
        } catch (IOException | GossipTls.TlsException e) {
            throw new CaException("cannot revoke " + sledCert + ": " + e.getMessage());
        }
    }

    private static KeyPair p256(SecureRandom random) throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), random);
        return g.generateKeyPair();
    }

    private static BigInteger serial(SecureRandom random) {
        return new BigInteger(127, random).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey by)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA")
                .build(by)));
    }

    /** PEM, written 0600 from the start (never readable by others, not even for a moment). */
    static void writeKey(Path file, PrivateKey key) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
    }

    static void writeCertificate(Path file, X509Certificate c) throws IOException, GeneralSecurityException {
        Files.writeString(file, pem("CERTIFICATE", c.getEncoded()), StandardCharsets.US_ASCII);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
