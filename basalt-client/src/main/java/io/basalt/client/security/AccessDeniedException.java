package io.basalt.client.security;

import io.basalt.client.BasaltException;

/**
 * The user lacks the permission an operation needs. Sending it again does not help, so no client
 * does; the message names the user, the operation, the letter missing and where.
 */
public final class AccessDeniedException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public AccessDeniedException(String message) {
        super(message);
    }
}
