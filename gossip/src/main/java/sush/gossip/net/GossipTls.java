package sush.gossip.net;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * The rack's identity on gossip links (security.md section 1): mutual TLS 1.3 where both ends
 * present a certificate issued by the rack CA that names a sled ({@code sush:sled:<baseboard>} as
 * a SAN URI). A certificate from another CA, expired, not yet valid, without a sled name, or
 * with a revoked serial fails the handshake; the name a valid one proves is the link's
 * {@link sush.gossip.link.Link#peerIdentity()}, which the gossip node matches against the peer
 * set and the PREAMBLE. Revoked serials are re-read with {@link #reloadRevocations()} (SIGHUP).
 */
public final class GossipTls {
    /** The SAN URI prefix naming a sled. */
    public static final String SLED_URI = "sush:sled:";
    /**
     * A certificate's issue generation, as a second SAN URI (issue 36): a revocation by
     * baseboard refuses every generation up to the one it names. None: generation 0.
     */
    public static final String GENERATION_URI = "sush:generation:";
    /** A line of the revocation list that revokes a baseboard's certificates: {@code sled BOARD up-to N}. */
    public static final String SLED_REVOCATION = "sled";
    /** A handshake not done by then loses its connection (a peer that sends nothing, or garbage). */
    public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);

    private final X509Certificate ca;
    private final X509Certificate cert;
    private final PrivateKey key;
    private final Optional<Path> revokedFile;
    private volatile Revoked revoked;

    /** The revocation list: single serials, and for each revoked baseboard the last generation revoked. */
    record Revoked(Set<BigInteger> serials, Map<String, Long> sledsUpTo) {
        boolean covers(X509Certificate c) {
            if (serials.contains(c.getSerialNumber())) {
                return true;
            }
            Long upTo = identity(c).map(sledsUpTo::get).orElse(null);
            return upTo != null && generation(c) <= upTo;
        }
    }
    private final X509TrustManager trust;
    private final SslContext server;
    private final SslContext client;
    private final AtomicLong refusals = new AtomicLong();
    private volatile String lastRefusal = "";

    /** Why TLS material could not be used. */
    public static final class TlsException extends Exception {
        private static final long serialVersionUID = 1L;

        public TlsException(String message) {
            super(message);
        }
    }

    static {
        // One key share per handshake instead of two (the JDK offers x25519 and P-256 shares by
        // default): half the key generation when a whole rack dials at once. Every TLS 1.3
        // stack speaks x25519. Only when the JVM was not told otherwise, and only before its
        // TLS classes start.
        if (System.getProperty("jdk.tls.namedGroups") == null) {
            System.setProperty("jdk.tls.namedGroups", "x25519,secp256r1");
        }
    }

    /**
     * Certificates whose CA signature verified (their SHA-256), so that the check after each
     * handshake does not verify it again; bounded, cleared when full.
     */
    private final Set<String> verified = ConcurrentHashMap.newKeySet();
    private static final int MAX_VERIFIED = 4096;

    private GossipTls(X509Certificate ca, X509Certificate cert, PrivateKey key, Optional<Path> revokedFile)
            throws TlsException {
        this.ca = ca;
        this.cert = cert;
        this.key = key;
        this.revokedFile = revokedFile;
        this.revoked = readRevoked(revokedFile);
        this.trust = new RackTrust();
        try {
            this.server = tuned(SslContextBuilder.forServer(key, cert)).clientAuth(ClientAuth.REQUIRE)
                    .trustManager(trust).build();
            this.client = tuned(SslContextBuilder.forClient()).keyManager(key, cert).trustManager(trust).build();
        } catch (SSLException | RuntimeException e) {
            throw new TlsException("cannot build a TLS 1.3 context from " + cert.getSubjectX500Principal() + ": " + e);
        }
        if (identity(cert).isEmpty()) {
            throw new TlsException("the sled certificate names no sled (a SAN URI " + SLED_URI + "<baseboard>)");
        }
    }

    /**
     * Loads the rack CA certificate, this sled's certificate and its PKCS#8 private key (PEM),
     * and the revoked serials (one hexadecimal serial per line; {@code #} starts a comment), if any.
     */
    public static GossipTls load(Path caCert, Path sledCert, Path sledKey, Optional<Path> revokedSerials)
            throws TlsException {
        X509Certificate ca = readCertificate(caCert);
        X509Certificate cert = readCertificate(sledCert);
        PrivateKey key = readKey(sledKey);
        try {
            cert.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new TlsException(sledCert + " was not issued by the rack CA in " + caCert);
        }
        return new GossipTls(ca, cert, key, revokedSerials);
    }

    /**
     * The TLS engine gossip uses: BoringSSL (netty-tcnative) where its native library loads,
     * else the JDK's. Both run the same protocol and the same trust manager; BoringSSL makes
     * a handshake several times cheaper, which is what a whole rack booting at once pays (D-023).
     */
    public static SslProvider provider() {
        return OpenSsl.isAvailable() && !Boolean.getBoolean(JDK_ONLY) ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** A system property that forces the JDK's TLS engine (to compare, or where BoringSSL misbehaves). */
    public static final String JDK_ONLY = "sush.tls.jdk";

    private static SslContextBuilder tuned(SslContextBuilder b) {
        SslProvider provider = provider();
        b.sslProvider(provider).protocols("TLSv1.3");
        if (provider == SslProvider.OPENSSL) {
            // One key share per handshake (x25519), P-256 if a peer asks for it.
            b.option(OpenSslContextOption.GROUPS, new String[] {"X25519", "P-256"});
        }
        return b;
    }

    /** The sled this sled's own certificate names. */
    public String myIdentity() {
        return identity(cert).orElseThrow();
    }

    /** The rack CA this sled trusts. */
    public X509Certificate ca() {
        return ca;
    }

    public X509Certificate certificate() {
        return cert;
    }

    SslContext serverContext() {
        return server;
    }

    SslContext clientContext() {
        return client;
    }

    /** This sled's key (the HTTPS API serves with it too). */
    public PrivateKey key() {
        return key;
    }

    /**
     * A trust manager for clients of a sled's HTTPS API: the chain must come from the rack CA and
     * name a sled ({@code sush:sled:}); no host name check (sleds are named by certificate).
     */
    public static X509TrustManager apiTrust(X509Certificate ca) throws TlsException {
        return apiTrust(ca, Optional.empty());
    }

    /**
     * As {@link #apiTrust(X509Certificate)}, and when {@code sled} is given the certificate must
     * name that very sled: a sled relaying to another's API checks it reached that one.
     */
    public static X509TrustManager apiTrust(X509Certificate ca, Optional<String> sled) throws TlsException {
        X509TrustManager pkix = pkix(ca);
        return new X509ExtendedTrustManager() {
            private void check(X509Certificate[] chain, String authType) throws CertificateException {
                if (chain == null || chain.length == 0) {
                    throw new CertificateException("no certificate");
                }
                pkix.checkServerTrusted(chain, authType);
                if (identity(chain[0]).isEmpty()) {
                    throw new CertificateException("the API's certificate names no sled of this rack");
                }
                if (sled.isPresent() && !identity(chain[0]).get().equals(sled.get())) {
                    throw new CertificateException("the API's certificate names sled " + identity(chain[0]).get()
                            + ", not " + sled.get());
                }
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                check(chain, authType);
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, Socket s)
                    throws CertificateException {
                check(chain, authType);
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine e)
                    throws CertificateException {
                check(chain, authType);
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                throw new CertificateException("a client trust manager");
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, Socket s)
                    throws CertificateException {
                throw new CertificateException("a client trust manager");
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine e)
                    throws CertificateException {
                throw new CertificateException("a client trust manager");
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[] {ca};
            }
        };
    }

    /** Re-reads the revoked serials; the transport then closes links whose peer is revoked. */
    public void reloadRevocations() throws TlsException {
        revoked = readRevoked(revokedFile);
    }

    /** Whether a peer's certificate is still acceptable (issued, valid now, not revoked). */
    public boolean stillTrusted(X509Certificate peer) {
        try {
            trust.checkClientTrusted(new X509Certificate[] {peer}, "UNKNOWN");
            return true;
        } catch (CertificateException e) {
            return false;
        }
    }

    /** Handshakes refused by the trust check since start, and the last reason. */
    public long refusals() {
        return refusals.get();
    }

    public String lastRefusal() {
        return lastRefusal;
    }

    /** The sled a certificate names: its SAN URI {@code sush:sled:<baseboard>}. */
    public static Optional<String> identity(X509Certificate c) {
        try {
            Collection<List<?>> names = c.getSubjectAlternativeNames();
            if (names == null) {
                return Optional.empty();
            }
            for (List<?> n : names) {
                // Type 6 is a uniformResourceIdentifier (RFC 5280 GeneralName).
                if (n.size() >= 2 && Integer.valueOf(6).equals(n.get(0)) && n.get(1) instanceof String
                        && ((String) n.get(1)).startsWith(SLED_URI) && ((String) n.get(1)).length() > SLED_URI.length()) {
                    return Optional.of(((String) n.get(1)).substring(SLED_URI.length()));
                }
            }
            return Optional.empty();
        } catch (CertificateParsingException e) {
            return Optional.empty();
        }
    }

    /**
     * A sled certificate is issued directly by the rack CA (no intermediates): its signature
     * verifies with the CA's key, its issuer is the CA, it is valid now, it is no CA itself and
     * may sign. Checked directly rather than through a PKIX path build, which costs a rack of 32
     * sleds booting at once far more than the handshakes themselves.
     */
    private void issuedByTheRack(X509Certificate leaf) throws CertificateException {
        if (!leaf.getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
            throw new CertificateException("issued by " + leaf.getIssuerX500Principal() + ", not the rack CA");
        }
        String print;
        try {
            print = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(leaf.getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new CertificateException("unreadable certificate: " + e.getMessage());
        }
        if (!verified.contains(print)) {
            try {
                leaf.verify(ca.getPublicKey());
            } catch (GeneralSecurityException e) {
                throw new CertificateException("not signed by the rack CA: " + e.getMessage());
            }
            if (verified.size() >= MAX_VERIFIED) {
                verified.clear();
            }
            verified.add(print);
        }
        leaf.checkValidity();
        if (leaf.getBasicConstraints() >= 0) {
            throw new CertificateException("a CA certificate is no sled's");
        }
        boolean[] usage = leaf.getKeyUsage();
        if (usage != null && !usage[0]) {
            throw new CertificateException("the certificate's key may not sign (key usage)");
        }
    }

    /**
     * The rack CA, then the rack's own rules: a sled name, not revoked. Extended so that
     * the JDK does not wrap it with a host name check: sleds are named by certificate, not by
     * address, and the gossip node checks the name.
     */
    private final class RackTrust extends X509ExtendedTrustManager {

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType, true);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType, false);
        }

        private void check(X509Certificate[] chain, String authType, boolean client) throws CertificateException {
            try {
                if (chain == null || chain.length == 0) {
                    throw new CertificateException("no certificate");
                }
                X509Certificate leaf = chain[0];
                issuedByTheRack(leaf);
                if (identity(leaf).isEmpty()) {
                    throw new CertificateException("the certificate names no sled");
                }
                if (revoked.covers(leaf)) {
                    throw new CertificateException("certificate " + leaf.getSerialNumber().toString(16) + " of "
                            + identity(leaf).get() + " (generation " + generation(leaf) + ") is revoked");
                }
            } catch (CertificateException e) {
                refusals.incrementAndGet();
                lastRefusal = e.getMessage() == null ? e.toString() : e.getMessage();
                throw e;
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain, authType, true);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain, authType, false);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain, authType, true);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain, authType, false);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[] {ca};
        }
    }

    private static X509TrustManager pkix(X509Certificate ca) throws TlsException {
        try {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            ks.setCertificateEntry("rack-ca", ca);
            TrustManagerFactory f = TrustManagerFactory.getInstance("PKIX");
            f.init(ks);
            for (TrustManager t : f.getTrustManagers()) {
                if (t instanceof X509TrustManager) {
                    return (X509TrustManager) t;
                }
            }
            throw new TlsException("no X.509 trust manager");
        } catch (GeneralSecurityException | IOException e) {
            throw new TlsException("cannot trust the rack CA: " + e);
        }
    }

    public static X509Certificate readCertificate(Path file) throws TlsException {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (IOException | CertificateException | ClassCastException e) {
            throw new TlsException("cannot read a certificate from " + file + ": " + e.getMessage());
        }
    }

    /** A PKCS#8 PEM private key (EC or Ed25519). */
    public static PrivateKey readKey(Path file) throws TlsException {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new TlsException("cannot read the key " + file + ": " + e.getMessage());
        }
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new TlsException(file + " is not a PKCS#8 PEM private key (BEGIN PRIVATE KEY)");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
        } catch (IllegalArgumentException e) {
            throw new TlsException(file + ": bad base64 in the key");
        }
        for (String alg : new String[] {"EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next kind
            }
        }
        throw new TlsException(file + " holds neither an EC nor an Ed25519 key");
    }

    /** A certificate's issue generation (its {@link #GENERATION_URI} SAN), 0 when it has none. */
    public static long generation(X509Certificate c) {
        try {
            Collection<List<?>> names = c.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> n : names) {
                    if (n.size() >= 2 && Integer.valueOf(6).equals(n.get(0)) && n.get(1) instanceof String
                            && ((String) n.get(1)).startsWith(GENERATION_URI)) {
                        return Long.parseLong(((String) n.get(1)).substring(GENERATION_URI.length()));
                    }
                }
            }
        } catch (CertificateParsingException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    private static Revoked readRevoked(Optional<Path> file) throws TlsException {
        if (file.isEmpty() || !Files.exists(file.get())) {
            return new Revoked(Set.of(), Map.of());
        }
        List<BigInteger> out = new ArrayList<>();
        Map<String, Long> sleds = new HashMap<>();
        try {
            int n = 0;
            for (String line : Files.readAllLines(file.get(), StandardCharsets.US_ASCII)) {
                n++;
                int hash = line.indexOf('#');
                String t = (hash < 0 ? line : line.substring(0, hash)).strip();
                if (t.isEmpty()) {
                    continue;
                }
                String[] f = t.split("\\s+");
                if (f[0].equals(SLED_REVOCATION)) {
                    try {
                        if (f.length != 4 || !f[2].equals("up-to")) {
                            throw new NumberFormatException("sled BOARD up-to N");
                        }
                        sleds.merge(f[1], Long.parseLong(f[3]), Math::max);
                        continue;
                    } catch (NumberFormatException e) {
                        throw new TlsException(file.get() + " line " + n + ": not 'sled BOARD up-to N': " + t);
                    }
                }
                try {
                    out.add(new BigInteger(t.replace(":", ""), 16));
                } catch (NumberFormatException e) {
                    throw new TlsException(file.get() + " line " + n + ": not a hexadecimal serial: " + t);
                }
            }
        } catch (IOException e) {
            throw new TlsException("cannot read revoked serials from " + file.get() + ": " + e.getMessage());
        }
        return new Revoked(Set.copyOf(out), Map.copyOf(sleds));
    }
}
