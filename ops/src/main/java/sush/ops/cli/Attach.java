package sush.ops.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;
import sush.ops.wire.TerminalControl;

/**
 * The client's side of an interactive job's terminal (issue 19): the local terminal in raw
 * mode, keystrokes and window sizes to the sled, what the job shows to standard output;
 * {@code Ctrl-]} detaches (the job goes on). Without a terminal (a script) standard input is
 * relayed as it is and nothing is put in raw mode.
 */
final class Attach {
    /** Ctrl-]: detach, as telnet and ssh-like tools do. */
    static final int DETACH = 0x1d;

    private final Client client;
    private final String path;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean tty;
    private final AtomicReference<SledStatus> exit = new AtomicReference<>();
    private final AtomicBoolean detached = new AtomicBoolean();
    private final AtomicBoolean writes = new AtomicBoolean();
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile WebSocket ws;

    Attach(Client client, String job, PrintStream out, PrintStream err, boolean tty) {
        this.client = client;
        this.path = "/jobs/" + job + "/attach";
        this.out = out;
        this.err = err;
        this.tty = tty;
    }

    /** What the session ended with: the job's final status (null when detached or dropped). */
    SledStatus run(InputStream in) throws Client.Failure, InterruptedException {
        String saved = tty ? stty("-g") : null;
        try {
            if (tty) {
                stty("raw -echo");
            }
            ws = client.webSocket(path, new Listener());
            if (tty) {
                sendSize();
                DaemonCommand.onSignal("WINCH", this::sendSize);
            }
            Thread keys = new Thread(() -> relay(in), "sush-attach-keys");
            keys.setDaemon(true);
            keys.start();
            closed.await();
        } finally {
            if (saved != null) {
                stty(saved);
            }
        }
        return exit.get();
    }

    boolean detached() {
        return detached.get();
    }

    private void relay(InputStream in) {
        byte[] buf = new byte[4096];
        try {
            int n;
            while ((n = in.read(buf)) >= 0 && closed.getCount() > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == DETACH) {
                        if (i > 0) {
                            send(ByteBuffer.wrap(buf, 0, i), null);
                        }
                        detached.set(true);
                        send(null, Json.MAPPER.writeValueAsString(new TerminalControl("detach", null, null, null,
                                null, null)));
                        ws.sendClose(WebSocket.NORMAL_CLOSURE, "detached").join();
                        closed.countDown();
                        return;
                    }
                }
                send(ByteBuffer.wrap(buf, 0, n), null);
            }
        } catch (IOException | RuntimeException e) {
            // The input ended or the socket closed: the terminal's own end says the rest.
        }
    }

    private synchronized void send(ByteBuffer binary, String text) {
        WebSocket w = ws;
        if (w == null || w.isOutputClosed()) {
            return;
        }
        if (binary != null) {
            w.sendBinary(binary, true).join();
        } else {
            w.sendText(text, true).join();
        }
    }

    private void sendSize() {
        String size = stty("size");
        if (size == null) {
            return;
        }
        String[] rc = size.strip().split("\\s+");
        if (rc.length == 2) {
            send(null, Json.MAPPER.writeValueAsString(new TerminalControl("resize", Integer.parseInt(rc[0]),
                    Integer.parseInt(rc[1]), null, null, null)));
        }
    }

    /** Runs {@code stty ARGS} on the controlling terminal; its output, or null when it failed. */
    static String stty(String args) {
        try {
            Process p = new ProcessBuilder("sh", "-c", "stty " + args + " < /dev/tty").redirectErrorStream(true)
                    .start();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor() == 0 ? said.strip() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            out.write(b, 0, b.length);
            out.flush();
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                control(Json.read(Json.MAPPER.readTree(text.toString()), TerminalControl.class));
                text.setLength(0);
            }
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
            closed.countDown();
            return null;
        }

        @Override
        public void onError(WebSocket w, Throwable error) {
            closed.countDown();
        }
    }

    private void control(TerminalControl c) {
        String type = Said.text(c.type());
        if (type.equals("size")) {
            writes.set(Said.flag(c.write()));
            if (!writes.get()) {
                err.print("[sush: watching; only the session's starter types here]" + (tty ? "\r\n" : "\n"));
            }
        } else if (type.equals("exit")) {
            exit.set(c.status());
        } else if (type.equals("dropped")) {
            err.print("[sush: " + Client.printable(Said.text(c.message())) + "]" + (tty ? "\r\n" : "\n"));
        }
    }
}
