package sush.pipeline.exec;

import java.util.Arrays;

/** What a job wrote: lengths and SHA3-256 hashes of its stdout and stderr files. */
public record Output(long stdoutBytes, byte[] stdoutSha3, long stderrBytes, byte[] stderrSha3) {
    public Output {
        stdoutSha3 = stdoutSha3.clone();
        stderrSha3 = stderrSha3.clone();
    }

    @Override
    public byte[] stdoutSha3() {
        return stdoutSha3.clone();
    }

    @Override
    public byte[] stderrSha3() {
        return stderrSha3.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Output && stdoutBytes == ((Output) o).stdoutBytes && stderrBytes == ((Output) o).stderrBytes
                && Arrays.equals(stdoutSha3, ((Output) o).stdoutSha3)
                && Arrays.equals(stderrSha3, ((Output) o).stderrSha3);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(stdoutBytes) * 31 + Long.hashCode(stderrBytes);
    }

    @Override
    public String toString() {
        return "Output(stdout " + stdoutBytes + " bytes, stderr " + stderrBytes + " bytes)";
    }
}
