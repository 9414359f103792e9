package sush.ops.cli;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;

import sush.projections.id.Hashes;
import sush.ops.wire.SledStatus;
import sush.ops.wire.StatusReport;

/**
 * A job's recorded output as the CLI reads it: the status naming its lengths and hashes, the whole
 * output checked against that hash, or one byte range as served.
 */
final class JobOutputs {
    private JobOutputs() {
    }

    /** {@code --range}: the bytes the sled serves for one range of the output, as they are. */
    static byte[] rangeOf(Client c, String job, String sled, boolean stderr, String range) throws Client.Failure {
        if (!range.matches("[0-9]+-[0-9]*|-[0-9]+")) {
            throw new Client.Failure(2, "bad-range", "--range is FIRST-LAST, FIRST- or -COUNT (bytes), not " + range);
        }
        HttpResponse<byte[]> r = c.raw("GET", "/jobs/" + job + "/output/" + (stderr ? "stderr"
                : "stdout") + "?sled=" + query(sled), new byte[0], Map.of("Range", "bytes=" + range),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 206) {
            String body = new String(r.body(), StandardCharsets.UTF_8);
            throw new Client.Failure(r.statusCode() == 404 ? 4 : 2, r.statusCode() == 416 ? "bad-range"
                    : "http-" + r.statusCode(), "range " + range + ": " + Client.printable(body.strip()));
        }
        return r.body();
    }

    /** A query parameter's value, encoded. */
    static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** Sled {@code sled}'s status of {@code job} with its output's lengths and hashes, as any sled knows it. */
    static SledStatus outputStatus(Client c, String job, String sled) throws Client.Failure {
        SledStatus st = c.get("/jobs/" + job + "/status?sled=" + query(sled), StatusReport.class).statuses().get(sled);
        if (st == null || st.stdoutSha3() == null) {
            throw new Client.Failure(4, "no-output", "sled " + sled + " reports no output for " + job);
        }
        return st;
    }

    /** The output the sled serves, checked against the length and hash in that sled's status. */
    static byte[] verifiedOutput(Client c, String job, String sled, boolean stderr) throws Client.Failure {
        SledStatus st = outputStatus(c, job, sled);
        byte[] out = c.bytes("/jobs/" + job + "/output/" + (stderr ? "stderr" : "stdout") + "?sled=" + query(sled));
        String want = stderr ? st.stderrSha3() : st.stdoutSha3();
        if (!HexFormat.of().formatHex(Hashes.sha3Raw(out)).equals(want)) {
            throw new Client.Failure(6, "hash-mismatch", "the output served does not match the hash in the status");
        }
        return out;
    }
}
