package sush.ops.cli;

import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;
import tools.jackson.databind.JsonNode;

/** Test access to the CLI's output verification. */
public final class JobCommandAccess {
    private JobCommandAccess() {
    }

    public static byte[] verifiedOutput(Client c, String job, String sled, boolean stderr) throws Client.Failure {
        return JobOutputs.verifiedOutput(c, job, sled, stderr);
    }

    /** A status's line as `job status` and `--wait` print it. */
    public static String line(JsonNode status) {
        return JobStatuses.line(Json.read(status, SledStatus.class));
    }

    public static String summary(JsonNode statuses) {
        return JobHistoryCommand.summary(Json.readStatuses(statuses));
    }

    /** One word quoted for bash, as the CLI quotes an argument vector. */
    public static String shellQuote(String word) {
        return JobRequests.shellQuote(word);
    }
}
