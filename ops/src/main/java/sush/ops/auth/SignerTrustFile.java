package sush.ops.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.ops.wire.Json;
import sush.projections.job.SignerTrust;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;
import tools.jackson.databind.JsonNode;

/**
 * The signer-trust changes a sled applied (issue 41, D-062), kept beside its journal and its
 * revoked operators, never on the M.2s: read before the sled folds anything, so a restarted sled
 * never trusts a revoked signer again, not even briefly; written (temporary file, fsync, rename,
 * mode 0600) at every change. Each change is kept as gossiped (its operator's signature with it),
 * and checked again when read.
 */
public final class SignerTrustFile {
    public static final String NAME = "signer-trust.json";
    private final Optional<Path> file;
    /** How many changes the file holds (the store's applied changes only grow); -1: not written yet. */
    private int written = -1;

    SignerTrustFile(Optional<Path> file) {
        this.file = file;
    }

    /** The changes kept, in order; a file that does not read is an {@link IOException}. */
    public List<SignerTrust> read() throws IOException {
        if (file.isEmpty() || !Files.exists(file.get())) {
            return List.of();
        }
        List<SignerTrust> out = new ArrayList<>();
        try {
            JsonNode n = Json.MAPPER.readTree(Files.readString(file.get(), StandardCharsets.UTF_8));
            for (JsonNode c : n.path("changes")) {
                Message m = MessageCodec.decode(Base64.getDecoder().decode(c.asString()));
                if (!(m instanceof Message.TrustChange)) {
                    throw new IOException("an entry that is not a signer-trust change");
                }
                out.add(((Message.TrustChange) m).change());
            }
            written = out.size();
        } catch (MessageException | RuntimeException e) {
            throw new IOException("the signer-trust changes in " + file.get() + " do not read (" + e.getMessage()
                    + "): fix or restore the file; a sled does not serve having forgotten a revoked signer");
        }
        return out;
    }

    /**
     * Keeps {@code changes} (all of them, in order), unless the file holds as many already (a
     * change told again after a migration writes nothing); a failure is said, never hidden.
     */
    public synchronized void write(List<SignerTrust> changes) {
        if (file.isEmpty() || changes.size() == written) {
            return;
        }
        Path f = file.get();
        List<String> encoded = changes.stream().map(c -> Base64.getEncoder().encodeToString(MessageCodec.encode(
                new Message.TrustChange(c)))).toList();
        try {
            OwnerFiles.replace(f, Json.MAPPER.writeValueAsBytes(Map.of("changes", encoded)));
            written = changes.size();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("keeping the signer-trust changes in " + f + " failed: "
                    + e.getMessage(), e);
        }
    }
}
