package sush.pipeline.sled;

/**
 * How a sled signs its receipts (issue 40, D-060): with its own key, the one its rack CA's
 * certificate names (the daemon's gossip TLS key). The rack's name goes into every receipt.
 */
public interface ReceiptSigner {
    /** The rack's name, as its CA certificate's subject names it. */
    String rack();

    /** The signature of {@code body} (SHA256withECDSA for the rack's P-256 keys). */
    byte[] sign(byte[] body);
}
