package sush.pipeline.exec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;

import sush.projections.id.Hashes;

/**
 * What one copier kept of a job's stream (stdout or stderr): the bytes written and their SHA3,
 * or why keeping stopped. Closed once the job ends, after which nothing more is kept, so the
 * ending's figures are the ones the files hold.
 */
final class KeptStream {
    private final MessageDigest digest = Hashes.sha3();
    private long bytes;
    private String error;
    private boolean closed;

    /** Keeps nothing more, for {@code why} (a full disk): as a failed write, unless one failed already. */
    synchronized void refuse(String why) {
        if (error == null) {
            error = why;
        }
    }

    /** Writes and hashes {@code n} bytes unless closed; false once writing failed. */
    synchronized boolean keep(FileChannel file, byte[] buf, int n) {
        if (closed || error != null) {
            return error == null;
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
            while (b.hasRemaining()) {
                file.write(b);
            }
            digest.update(buf, 0, n);
            bytes += n;
            return true;
        } catch (IOException ioe) {
            error = ioe.toString();
            return false;
        }
    }

    /** Hashes and counts {@code n} bytes that are not kept here (a streamed output). */
    synchronized void count(byte[] buf, int n) {
        if (!closed) {
            digest.update(buf, 0, n);
            bytes += n;
        }
    }

    synchronized Snapshot close() {
        closed = true;
        return new Snapshot(bytes, digest.digest(), error);
    }

    /** What a closed stream kept: its size, its SHA3, and the error that stopped keeping (null if none). */
    record Snapshot(long bytes, byte[] sha3, String error) {
    }
}
