package io.basalt.bench.metrics;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.security.Action;
import io.basalt.client.security.Permission;
import io.basalt.server.ServerConfig;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Param;

/**
 * Suite {@code auth} (issue 23): what authentication and permission checks cost per request, end
 * to end, over {@link LoopbackRequestBenchmark}'s loop. The two settings of {@code auth}:
 * <ul>
 *   <li>{@code none} (the default, the baseline of the ratios): the server does not authenticate;
 *       requests go to the store unchecked;</li>
 *   <li>{@code password}: the server has {@code auth=password}; the client authenticates once per
 *       connection (SCRAM-SHA-256, outside the measurement) as a user who is not a superuser and
 *       holds RW on the table, so every put and get goes through the guarded view and its check
 *       against the grants.</li>
 * </ul>
 * The claim in docs/security.md is that a check is a map lookup and a walk over the user's few
 * grants, no I/O and no lock: the two should measure level within the error bars.
 */
public class AuthOverheadBenchmark extends LoopbackRequestBenchmark {

    private static final char[] PASSWORD = "bench-password".toCharArray();

    /** {@code none} or {@code password}. */
    @Param({"none", "password"})
    public String auth;

    private boolean checked() {
        return switch (auth) {
            case "none" -> false;
            case "password" -> true;
            default -> throw new IllegalArgumentException("auth is none or password, not " + auth);
        };
    }

    @Override
    protected void prepare(Path storeDir) throws Exception {
        if (checked()) {
            try (Connection owner = Basalt.open(storeDir)) {
                owner.admin().createTable(TableDescriptor.of("t", "f")).join();
                owner.admin().addUser("bench", PASSWORD).join();
                owner.admin().grant(Permission.onTable("bench", "t", Action.parse("RW"))).join();
            }
        }
    }

    @Override
    protected ServerConfig.Builder server(ServerConfig.Builder defaults) {
        return checked() ? defaults.auth(ServerConfig.AuthSettings.passwords()) : defaults;
    }

    @Override
    protected ClientOptions.Builder client(ClientOptions.Builder defaults) {
        return checked() ? defaults.credentials("bench", PASSWORD) : defaults;
    }
}
