package sush.ops.daemon;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;

import sush.gossip.net.GossipTls;
import sush.pipeline.sled.ReceiptSigner;

/**
 * The daemon's receipt signer (issue 40, D-060): the sled's gossip TLS key, which the rack CA's
 * certificate names; the rack's name is the CA certificate's common name.
 */
final class TlsReceiptSigner implements ReceiptSigner {
    /** The signature of every receipt: ECDSA over P-256 with SHA-256, as the rack's keys are. */
    static final String ALGORITHM = "SHA256withECDSA";

    private final PrivateKey key;
    private final String rack;

    TlsReceiptSigner(GossipTls tls) {
        this.key = tls.key();
        this.rack = sush.ops.audit.AuditCheck.commonName(tls.ca().getSubjectX500Principal().getName());
    }

    @Override
    public String rack() {
        return rack;
    }

    @Override
    public byte[] sign(byte[] body) {
        try {
            Signature s = Signature.getInstance(ALGORITHM);
            s.initSign(key);
            s.update(body);
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a receipt with the sled's key: " + e.getMessage(), e);
        }
    }
}
