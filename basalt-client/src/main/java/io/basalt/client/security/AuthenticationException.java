package io.basalt.client.security;

import io.basalt.client.BasaltException;

/**
 * An authentication that failed or could not proceed: a wrong password, an unknown user, a malformed
 * or out-of-place message of the exchange, or a server that could not prove it knows the password.
 * The message says which, and never contains a password, a proof, a key or a salt.
 */
public final class AuthenticationException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message) {
        super(message);
    }
}
