package io.basalt.client.net;

import io.basalt.client.BasaltException;
import io.basalt.client.NoSuchFamilyException;
import io.basalt.client.ScannerExpiredException;
import io.basalt.client.ServerException;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableExistsException;
import io.basalt.client.TableNotFoundException;
import io.basalt.client.UnavailableException;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Status;
import java.util.List;

/**
 * Between exceptions and error responses, both ways: the status and arguments a failure is sent
 * with, and the exception the embedded store would have raised, rebuilt from them.
 */
public final class Errors {

    private Errors() {}

    /**
     * @param error the message, then the arguments ({@link Messages#readError})
     */
    public static BasaltException of(String what, String server, Status status, int code, List<String> error) {
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
            case TABLE_DISABLED -> args.size() == 1 ? new io.basalt.client.TableDisabledException(args.getFirst())
                    : new ServerException(message);
            case READ_ONLY -> args.size() == 1 ? new StoreReadOnlyException(args.getFirst())
                    : failed(what, server, status, message);
            case INVALID_ARGUMENT -> new BasaltException(message, new IllegalArgumentException(message));
            case UNAVAILABLE -> new UnavailableException(what + " on " + server + ": " + message);
            case UNAUTHENTICATED -> new io.basalt.client.security.AuthenticationException(what + " on " + server + ": "
                    + message);
            case PERMISSION_DENIED -> new io.basalt.client.security.AccessDeniedException(message);
            case TOO_MANY_SCANNERS -> new io.basalt.client.TooManyScannersException(what + " on " + server + ": "
                    + message);
            default -> failed(what, server, status, message);
        };
    }

    private static ServerException failed(String what, String server, Status status, String message) {
        return new ServerException(what + " failed on " + server + " (" + status + "): " + message);
    }

    /** The status a failure is answered with. */
    public static Status statusOf(Throwable t) {
        return switch (t) {
            case TableNotFoundException _ -> Status.TABLE_NOT_FOUND;
            case io.basalt.client.TableDisabledException _ -> Status.TABLE_DISABLED;
            case TableExistsException _ -> Status.TABLE_EXISTS;
            case NoSuchFamilyException _ -> Status.NO_SUCH_FAMILY;
            case MalformedFrameException _ -> Status.MALFORMED_REQUEST;
            case StoreReadOnlyException _ -> Status.READ_ONLY;
            case UnavailableException _ -> Status.UNAVAILABLE;
            case io.basalt.client.security.AuthenticationException _ -> Status.UNAUTHENTICATED;
            case io.basalt.client.security.AccessDeniedException _ -> Status.PERMISSION_DENIED;
            case io.basalt.client.TooManyScannersException _ -> Status.TOO_MANY_SCANNERS;
            case IllegalArgumentException _ -> Status.INVALID_ARGUMENT;
            default -> Status.SERVER_ERROR;
        };
    }

    /** The values the client rebuilds a typed exception from: table (and family) names, a reason. */
    public static List<String> argsOf(Throwable t) {
        return switch (t) {
            case TableNotFoundException e -> List.of(e.table());
            case io.basalt.client.TableDisabledException e -> List.of(e.table());
            case TableExistsException e -> List.of(e.table());
            case NoSuchFamilyException e -> List.of(e.table(), e.family());
            case StoreReadOnlyException e -> List.of(e.reason());
            default -> List.of();
        };
    }
}
