package sush.pipeline.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * A pseudo-terminal for an interactive job (issue 19): the master side, held by the sled, and
 * the slave's path, which the job's process opens as its standard streams and takes as its
 * controlling terminal ({@code setsid --ctty}). Linux, 64-bit (glibc's {@code posix_openpt},
 * {@code grantpt}, {@code unlockpt}, {@code ptsname_r}, {@code ioctl}); nothing is forked here.
 */
public final class Pty implements AutoCloseable {
    /** The C library calls, through JNA (errno as {@link LastErrorException}). */
    interface LibC extends Library {
        LibC C = Native.load("c", LibC.class);

        int posix_openpt(int flags) throws LastErrorException;

        int grantpt(int fd) throws LastErrorException;

        int unlockpt(int fd) throws LastErrorException;

        int ptsname_r(int fd, byte[] buf, long len);

        long read(int fd, byte[] buf, long count) throws LastErrorException;

        long write(int fd, byte[] buf, long count) throws LastErrorException;

        int ioctl(int fd, long request, short[] winsize) throws LastErrorException;

        int close(int fd);
    }

    private static final int O_RDWR = 2;
    private static final int O_NOCTTY = 0400;
    private static final int O_CLOEXEC = 02000000;
    private static final long TIOCSWINSZ = 0x5414;
    private static final long TIOCGWINSZ = 0x5413;
    private static final int EIO = 5;
    private static final int EINTR = 4;

    private final int master;
    private final String slave;
    private volatile boolean closed;

    private Pty(int master, String slave) {
        this.master = master;
        this.slave = slave;
    }

    /** A new pseudo-terminal of {@code rows} x {@code cols}. */
    public static Pty open(int rows, int cols) throws IOException {
        int fd;
        try {
            fd = LibC.C.posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        } catch (LastErrorException | UnsatisfiedLinkError e) {
            throw new IOException("no pseudo-terminal: posix_openpt: " + e.getMessage());
        }
        try {
            LibC.C.grantpt(fd);
            LibC.C.unlockpt(fd);
            byte[] name = new byte[128];
            int rc = LibC.C.ptsname_r(fd, name, name.length);
            if (rc != 0) {
                throw new IOException("ptsname_r: error " + rc);
            }
            int len = 0;
            while (len < name.length && name[len] != 0) {
                len++;
            }
            Pty p = new Pty(fd, new String(name, 0, len, StandardCharsets.US_ASCII));
            p.resize(rows, cols);
            return p;
        } catch (LastErrorException e) {
            LibC.C.close(fd);
            throw new IOException("preparing the pseudo-terminal: " + e.getMessage());
        } catch (IOException e) {
            LibC.C.close(fd);
            throw e;
        }
    }

    /** The slave's path ({@code /dev/pts/N}): the job's stdin, stdout and stderr. */
    public String slave() {
        return slave;
    }

    /** Sets the window size; the job's foreground process group gets SIGWINCH. */
    public void resize(int rows, int cols) throws IOException {
        if (rows < 1 || cols < 1 || rows > 0xFFFF || cols > 0xFFFF) {
            throw new IllegalArgumentException("a window is 1 to 65535 rows and columns");
        }
        try {
            LibC.C.ioctl(master, TIOCSWINSZ, new short[] {(short) rows, (short) cols, 0, 0});
        } catch (LastErrorException e) {
            throw new IOException("TIOCSWINSZ: " + e.getMessage());
        }
    }

    /** The window size: rows, columns. */
    public int[] size() throws IOException {
        short[] ws = new short[4];
        try {
            LibC.C.ioctl(master, TIOCGWINSZ, ws);
        } catch (LastErrorException e) {
            throw new IOException("TIOCGWINSZ: " + e.getMessage());
        }
        return new int[] {ws[0] & 0xFFFF, ws[1] & 0xFFFF};
    }

    /** Types {@code bytes} into the terminal (the job reads them as keyboard input). */
    public void write(byte[] bytes) throws IOException {
        int at = 0;
        while (at < bytes.length && !closed) {
            byte[] rest = at == 0 ? bytes : Arrays.copyOfRange(bytes, at, bytes.length);
            try {
                at += (int) LibC.C.write(master, rest, rest.length);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != EINTR) {
                    throw new IOException("writing to the terminal: " + e.getMessage());
                }
            }
        }
    }

    /**
     * What the job writes to its terminal, until every process holding the slave has closed
     * it (the kernel then answers EIO: the end).
     */
    public InputStream output() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                byte[] buf = off == 0 ? b : new byte[len];
                while (!closed) {
                    try {
                        long n = LibC.C.read(master, buf, Math.min(len, buf.length));
                        if (n <= 0) {
                            return -1;
                        }
                        if (off != 0) {
                            System.arraycopy(buf, 0, b, off, (int) n);
                        }
                        return (int) n;
                    } catch (LastErrorException e) {
                        if (e.getErrorCode() == EIO) {
                            return -1;
                        }
                        if (e.getErrorCode() != EINTR) {
                            throw new IOException("reading the terminal: " + e.getMessage());
                        }
                    }
                }
                return -1;
            }
        };
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            LibC.C.close(master);
        }
    }
}
