package sush.ops.wire;

/**
 * Every refusal's body: the error's code (what a script tests) and a message for a person. The
 * HTTP status says the kind of refusal; the code says which.
 */
public record ApiError(String error, String message) {
}
