package sush.gossip.set;

import sush.gossip.clock.Version;

/** One immutable message of the set: its causal version and an opaque payload. */
public final class Message {
    private final Version version;
    private final byte[] payload;

    public Message(Version version, byte[] payload) {
        this.version = version;
        this.payload = payload.clone();
    }

    public Version version() {
        return version;
    }

    public byte[] payload() {
        return payload.clone();
    }

    public int payloadSize() {
        return payload.length;
    }

    @Override
    public String toString() {
        return "Message[" + version + ", " + payload.length + " bytes]";
    }
}
