package sush.ops.auth;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import sush.ops.auth.Authority.Audience;
import sush.ops.auth.Authority.Refusal;
import sush.projections.id.IdException;
import sush.projections.id.KeyId;

/**
 * The two {@code Authorization} schemes of an operator's identity, read and checked as far as
 * no state is needed: a signed request ({@code Sush key-id=..., nonce=..., seq=..., aud=...,
 * sig=...}), refused unless it is for this sled, and a read token ({@code SushRead
 * KEY.NONCE.EXPIRES.SIG}, D-035). The {@link Authority} then checks them against its identities.
 */
final class AuthorizationHeaders {
    private AuthorizationHeaders() {
    }

    /**
     * A signed request's fields: the identity (key and login nonce), the sled it is for, its
     * sequence number, its signature.
     */
    record Signed(KeyId key, byte[] nonce, String aud, long seq, byte[] sig) {
    }

    /** A read token's fields: the identity (key and login nonce), the token's expiry, its signature. */
    record ReadToken(KeyId key, byte[] nonce, long expires, byte[] sig) {
    }

    /**
     * The fields of a request's {@code Authorization: Sush ...} ({@code aud}: the sled it is for,
     * base64url), or a refusal (401): none given, malformed, or signed for another sled than
     * {@code audience} admits.
     */
    static Signed signed(String header, Audience audience) throws Refusal {
        if (header == null || !header.startsWith("Sush ")) {
            throw new Refusal(401, "login-required", "this request needs an operator identity: sush login");
        }
        Map<String, String> f = new LinkedHashMap<>();
        for (String part : header.substring(5).split(",")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                throw new Refusal(401, "malformed-authorization", "Authorization: Sush key-id=, nonce=, seq=, sig=");
            }
            f.put(part.substring(0, eq).strip(), part.substring(eq + 1).strip());
        }
        KeyId key;
        byte[] nonce;
        byte[] sig;
        long seq;
        String aud;
        try {
            key = KeyId.parse(f.getOrDefault("key-id", ""));
            nonce = Base64.getUrlDecoder().decode(f.getOrDefault("nonce", ""));
            sig = Base64.getUrlDecoder().decode(f.getOrDefault("sig", ""));
            seq = Long.parseLong(f.getOrDefault("seq", ""));
            aud = new String(Base64.getUrlDecoder().decode(f.getOrDefault("aud", "")), StandardCharsets.UTF_8);
        } catch (IdException | IllegalArgumentException e) {
            throw new Refusal(401, "malformed-authorization", "Authorization: Sush key-id=, nonce=, seq=, aud=, sig=: "
                    + e.getMessage());
        }
        if (aud.isEmpty()) {
            throw new Refusal(401, "wrong-audience", "the request names no sled it is for (aud=): a client of an "
                    + "older build; update sush");
        }
        if (!audience.admits(aud)) {
            throw new Refusal(401, "wrong-audience", "the request was signed for sled " + printable(aud)
                    + ", not for this one (" + audience.me() + ")" + audience.relayTo().map(r -> " or sled " + r
                    + ", which it names").orElse(""));
        }
        return new Signed(key, nonce, aud, seq, sig);
    }

    /** The fields of a read token ({@code SushRead KEY.NONCE.EXPIRES.SIG}), or a refusal (401). */
    static ReadToken readToken(String header) throws Refusal {
        if (header == null || !header.startsWith(Authority.READ_SCHEME)) {
            throw new Refusal(401, "login-required", "this page needs a read token: sush login --web");
        }
        String[] f = header.substring(Authority.READ_SCHEME.length()).strip().split("\\.");
        KeyId key;
        byte[] nonce;
        byte[] sig;
        long expires;
        try {
            if (f.length != 4) {
                throw new IllegalArgumentException("four fields");
            }
            key = KeyId.parse(f[0]);
            nonce = Base64.getUrlDecoder().decode(f[1]);
            expires = Long.parseLong(f[2]);
            sig = Base64.getUrlDecoder().decode(f[3]);
        } catch (IdException | IllegalArgumentException e) {
            throw new Refusal(401, "malformed-authorization", "a read token is KEY.NONCE.EXPIRES.SIG: " + e.getMessage());
        }
        return new ReadToken(key, nonce, expires, sig);
    }

    /** {@code t} with anything but printable ASCII replaced, at most 128 characters (for refusals). */
    private static String printable(String t) {
        String cut = t.length() > 128 ? t.substring(0, 128) + "..." : t;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
