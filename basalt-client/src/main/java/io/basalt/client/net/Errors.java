package io.basalt.client.net;

import io.basalt.client.BasaltException;
import io.basalt.client.NoSuchFamilyException;
import io.basalt.client.ScannerExpiredException;
import io.basalt.client.ServerException;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableExistsException;
import io.basalt.client.TableNotFoundException;
import io.basalt.protocol.Status;
import java.util.List;

/** Turns an error response back into the exception the embedded store would have raised. */
final class Errors {

    private Errors() {}

    /**
     * @param error the message, then the arguments ({@link Messages#readError})
     */
    static BasaltException of(String what, String server, Status status, int code, List<String> error) {
        String message = error.getFirst();
        List<String> args = error.subList(1, error.size());
        if (status == null) {
            return new ServerException(what + " failed on " + server + " with unknown status " + code + ": " + message);
        }
        return switch (status) {
            case TABLE_NOT_FOUND -> args.size() == 1 ? new TableNotFoundException(args.getFirst())
                    : new ServerException(message);
            case TABLE_EXISTS -> args.size() == 1 ? new TableExistsException(args.getFirst())
                    : new ServerException(message);
            case NO_SUCH_FAMILY -> args.size() == 2 ? new NoSuchFamilyException(args.get(0), args.get(1))
                    : new ServerException(message);
            case UNKNOWN_SCANNER -> new ScannerExpiredException(message);
            case READ_ONLY -> args.size() == 1 ? new StoreReadOnlyException(args.getFirst())
                    : failed(what, server, status, message);
            case INVALID_ARGUMENT -> new BasaltException(message, new IllegalArgumentException(message));
            default -> failed(what, server, status, message);
        };
    }

    private static ServerException failed(String what, String server, Status status, String message) {
        return new ServerException(what + " failed on " + server + " (" + status + "): " + message);
    }
}
