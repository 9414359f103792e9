package sush.ops.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

import sush.ops.wire.SledStatus;
import sush.ops.wire.StatusReport;
import sush.ops.wire.Versions;
import sush.projections.id.Hashes;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * Jobs that run on exactly one sled, interactive or streaming: finding the sled that runs one and
 * reaching it at its own API, attaching to its terminal, receiving its stream (checked against the
 * hash in its status), and the last job started from this account.
 */
final class OneSledJobs {
    private OneSledJobs() {
    }

    /** An interactive job names one sled: a baseboard, a cubby or a serial. */
    static void oneSled(String target) throws Client.Failure {
        try {
            if (!Target.parse(target).namesOneSled()) {
                throw new Client.Failure(2, "one-sled-only", "an interactive or streaming job runs on exactly one sled: --target "
                        + "BASEBOARD or --target CUBBY, not " + Client.printable(target));
            }
        } catch (TargetException e) {
            throw new Client.Failure(2, "bad-target", e.getMessage());
        }
    }

    /** Where a one-sled job runs: the sled, its status there, a client of its API. */
    record Where(String sled, SledStatus status, Client there) {
    }

    /** Waits (30 s at most) for the sled running {@code job} to report it; reaches it at the API it announced. */
    static Where where(Global g, String job) throws Client.Failure {
        Client c = g.client();
        String sled = null;
        SledStatus status = null;
        for (int i = 0; i < 600 && sled == null; i++) {
            try {
                for (Map.Entry<String, SledStatus> e : c.get("/jobs/" + job + "/status", StatusReport.class).statuses()
                        .entrySet()) {
                    sled = e.getKey();
                    status = e.getValue();
                }
            } catch (Client.Failure f) {
                if (!f.code().equals("unknown-job")) {
                    throw f;
                }
            }
            if (sled == null) {
                Client.sleep(50);
            }
        }
        if (sled == null) {
            throw new Client.Failure(4, "not-started", "job " + job + " has not started on any sled yet");
        }
        Client there = c;
        for (Versions.Sled s : c.get("/versions", Versions.class).sleds()) {
            if (Said.text(s.baseboard()).equals(sled) && s.api() != null) {
                there = g.client(s.api());
            }
        }
        return new Where(sled, status, there);
    }

    /**
     * Receives a streaming job's stdout into {@code out} as it is produced, then checks its length
     * and SHA3-256 against the status of the sled that ran it: 0, 5 (exit not 0) or 6 (mismatch).
     */
    static int receive(Global g, String job, OutputStream out) throws Client.Failure {
        Where w = where(g, job);
        MessageDigest d = Hashes.sha3();
        long got = 0;
        InputStream in = null;
        for (int i = 0; i < 200 && in == null; i++) {
            HttpResponse<InputStream> r = w.there().raw("GET", "/jobs/" + job + "/stream",
                    new byte[0], Map.of(), HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() == 200) {
                in = r.body();
                break;
            }
            String body;
            try (InputStream b = r.body()) {
                body = new String(b.readNBytes(4096), StandardCharsets.UTF_8);
            } catch (IOException e) {
                body = "";
            }
            if (r.statusCode() != 404 || statusOn(w.there(), job, w.sled()).map(s -> JobCommand.TERMINAL.contains(
                    Said.text(s.status()))).orElse(false)) {
                throw new Client.Failure(r.statusCode() == 404 ? 4 : 2, "no-stream", "job " + job + " on " + w.sled()
                        + ": " + Client.printable(body.strip()));
            }
            Client.sleep(50);
        }
        if (in == null) {
            throw new Client.Failure(4, "no-stream", "job " + job + " never streamed on " + w.sled());
        }
        byte[] buf = new byte[64 * 1024];
        try (InputStream s = in) {
            int n;
            while ((n = s.read(buf)) >= 0) {
                d.update(buf, 0, n);
                out.write(buf, 0, n);
                got += n;
            }
            out.flush();
        } catch (IOException e) {
            throw new Client.Failure(3, "stream-cut", "the stream of job " + job + " broke after " + got + " bytes: "
                    + e.getMessage());
        }
        SledStatus end = null;
        for (int i = 0; i < 600 && end == null; i++) {
            end = statusOn(w.there(), job, w.sled()).filter(s -> JobCommand.TERMINAL.contains(Said.text(s.status())))
                    .orElse(null);
            if (end == null) {
                Client.sleep(50);
            }
        }
        if (end == null) {
            throw new Client.Failure(3, "no-status", "job " + job + " on " + w.sled() + " streamed " + got + " bytes "
                    + "but reported no end");
        }
        String sha3 = HexFormat.of().formatHex(d.digest());
        if (end.stdoutSha3() != null && (Said.number(end.stdoutBytes()) != got || !end.stdoutSha3().equals(sha3))) {
            throw new Client.Failure(6, "hash-mismatch", "received " + got + " bytes (SHA3-256 " + sha3 + "), the "
                    + "status says " + Said.number(end.stdoutBytes()) + " (" + end.stdoutSha3() + ")");
        }
        g.invocation().err().println("job " + job + " on " + w.sled() + ": " + JobStatuses.line(end) + "; " + got
                + " bytes streamed" + (end.stdoutSha3() != null ? ", hash verified" : ""));
        return Said.number(end.exitCode(), -1) == 0 ? 0 : 5;
    }

    private static Optional<SledStatus> statusOn(Client c, String job, String sled) {
        try {
            return Optional.ofNullable(c.get("/jobs/" + job + "/status?sled=" + JobOutputs.query(sled),
                    StatusReport.class).statuses().get(sled));
        } catch (Client.Failure f) {
            return Optional.empty();
        }
    }

    /** The file keeping the last job this account started (for `sush job attach` without an id). */
    static Path lastJobFile(Global g) {
        return g.cacheDir().resolve("last-job");
    }

    static void remember(Global g, String job) {
        try {
            Files.createDirectories(g.cacheDir());
            Files.writeString(lastJobFile(g), job + "\n");
        } catch (IOException e) {
            // Only a convenience: `sush job attach ID` still works.
        }
    }

    static String last(Global g) throws Client.Failure {
        try {
            return JobCommand.jobId(Files.readString(lastJobFile(g)).strip()).codephrase();
        } catch (IOException e) {
            throw new Client.Failure(4, "no-last-job", "no job was started from this account here: sush job attach ID");
        }
    }

    /**
     * Attaches to an interactive job at the sled running it (found by its status, reached at
     * the API it announced); returns the exit code the job's end gives.
     */
    static int attachTo(Global g, String job) throws Client.Failure {
        Where w = where(g, job);
        if (JobCommand.TERMINAL.contains(Said.text(w.status().status()))) {
            g.invocation().err().println("job " + job + " on " + w.sled() + " already ended: "
                    + JobStatuses.line(w.status()));
            return Said.number(w.status().exitCode(), -1) == 0 ? 0 : 5;
        }
        String sled = w.sled();
        Client there = w.there();
        Invocation at = g.invocation();
        Attach a = new Attach(there, job, at.out(), at.err(), at.console());
        SledStatus exit;
        try {
            exit = a.run(at.in());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Client.Failure(130, "interrupted", "interrupted");
        }
        if (a.detached()) {
            at.err().println("detached from job " + job + " (it goes on): sush job attach " + job);
            return 0;
        }
        if (exit == null) {
            throw new Client.Failure(3, "terminal-lost", "the terminal of job " + job + " closed without its end; "
                    + "sush job status " + job);
        }
        at.err().println("job " + job + " on " + sled + ": " + JobStatuses.line(exit));
        return Said.number(exit.exitCode(), -1) == 0 ? 0 : 5;
    }
}
