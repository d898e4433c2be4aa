package io.basalt.client;

/** The server refused or failed a request; the message is the server's, and names the request. */
public final class ServerException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public ServerException(String message) {
        super(message);
    }
}
