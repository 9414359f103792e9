package sush.ops.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import sush.projections.id.KeyId;

/**
 * The operators file a sled reads (at its start and on SIGHUP): who may log in, as OpenSSH
 * authorized_keys lines, each key with its comment.
 */
final class OperatorsFile {
    private OperatorsFile() {
    }

    /** The operators file: OpenSSH authorized_keys lines (options before the key type are ignored). */
    static Map<KeyId, Authority.Operator> read(Path file) throws IOException {
        Map<KeyId, Authority.Operator> out = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return Map.of();
        }
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] f = t.split("\\s+");
            int at = 0;
            while (at < f.length && !f[at].startsWith("ssh-") && !f[at].startsWith("ecdsa-") && !f[at].startsWith("sk-")) {
                at++; // options
            }
            if (at + 1 >= f.length) {
                throw new IOException(file + " line " + n + ": no key");
            }
            try {
                SshKey k = SshKey.fromOpenSsh(f[at] + " " + f[at + 1]);
                StringBuilder comment = new StringBuilder();
                for (int c = at + 2; c < f.length; c++) {
                    comment.append(comment.length() == 0 ? "" : " ").append(f[c]);
                }
                out.put(k.id(), new Authority.Operator(k, comment.toString()));
            } catch (SshKey.KeyException e) {
                throw new IOException(file + " line " + n + ": " + e.getMessage());
            }
        }
        return Map.copyOf(out);
    }
}
