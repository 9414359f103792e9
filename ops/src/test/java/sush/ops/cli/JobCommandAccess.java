package sush.ops.cli;

/** Test access to the CLI's output verification. */
public final class JobCommandAccess {
    private JobCommandAccess() {
    }

    public static byte[] verifiedOutput(Client c, String job, String sled, boolean stderr) throws Client.Failure {
        return JobCommand.verifiedOutput(c, job, sled, stderr);
    }

    /** A status's line as `job status` and `--wait` print it. */
    public static String line(tools.jackson.databind.JsonNode status) {
        return JobCommand.line(status);
    }

    public static String summary(tools.jackson.databind.JsonNode statuses) {
        return JobCommand.summary(statuses);
    }

    /** One word quoted for bash, as the CLI quotes an argument vector. */
    public static String shellQuote(String word) {
        return JobCommand.shellQuote(word);
    }
}
