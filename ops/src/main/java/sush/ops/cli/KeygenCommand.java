package sush.ops.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignerKey;

/** {@code sush keygen --out DIR}: a signer key pair, {@code signer.key} (0600) and {@code signer.pub}. */
@Command(name = "keygen", description = "Make a signer key pair: DIR/signer.key and DIR/signer.pub.")
public final class KeygenCommand implements Callable<Integer> {
    @Option(names = "--out", required = true, description = "the directory the key pair is written to "
            + "(the private key mode 0600)")
    Path out;
    @Option(names = "--ecdsa-p256", description = "ECDSA P-256 instead of Ed25519")
    boolean p256;

    /** Where this command runs: its streams, and the directory its paths are relative to. */
    private final Invocation invocation;

    KeygenCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() throws Exception {
        write(invocation.path(out), p256 ? SignatureAlgorithm.ECDSA_P256 : SignatureAlgorithm.ED25519);
        invocation.out().println("wrote " + out.resolve("signer.key") + " and " + out.resolve("signer.pub"));
        return 0;
    }

    /** Writes a new key pair into {@code dir}; refuses to overwrite a key. */
    public static SignerKey write(Path dir, SignatureAlgorithm alg) throws Exception {
        Files.createDirectories(dir);
        Path priv = dir.resolve("signer.key");
        if (Files.exists(priv)) {
            throw new IllegalStateException(priv + " exists; not overwriting a signer key");
        }
        SignerKey k = SignerKey.generate(alg, new SecureRandom());
        Files.createFile(priv, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(priv, k.privatePem());
        Files.writeString(dir.resolve("signer.pub"), k.publicPem());
        return k;
    }
}
