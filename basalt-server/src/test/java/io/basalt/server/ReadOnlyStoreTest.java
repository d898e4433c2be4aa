package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #17: a store that went read-only ({@link StoreReadOnlyException} from the engine on every
 * write) is answered {@code READ_ONLY} with its reason, the network client raises the same
 * exception with the same reason, never sends the write again, and reads go on. The engine's
 * read-only mode is stood in for by a hook that fails every write the way it will.
 */
class ReadOnlyStoreTest {

    private static final String REASON = "the write-ahead log 000042.log failed to force: No space left on device";
    private static final Set<String> WRITES = Set.of("put", "delete", "increment", "checkAndMutate");

    @TempDir
    Path dir;

    private static Throwable failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the write succeeded on a read-only store");
    }

    private static void assertReadOnly(Throwable t) {
        assertThat(t).isInstanceOf(StoreReadOnlyException.class);
        assertThat(((StoreReadOnlyException) t).reason()).isEqualTo(REASON);
    }

    @Test
    void everyWriteToAReadOnlyStoreFailsWithItsReasonOnceAndReadsGoOn() throws Exception {
        AtomicBoolean readOnly = new AtomicBoolean();
        AtomicInteger writesTried = new AtomicInteger();
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).ioThreads(1).build();
        try (BasaltServer server = BasaltServer.start(config, c -> EngineHandler.over(new HookedStore(
                Basalt.open(c.dataDir(), c.store()), (table, method, args) -> {
                    boolean write = WRITES.contains(method.getName()) || method.getName().equals("batch");
                    if (!write || !readOnly.get()) {
                        return HookedStore.pass(table, method, args);
                    }
                    writesTried.incrementAndGet();
                    if (method.getName().equals("batch")) {
                        List<CompletableFuture<Object>> each = new ArrayList<>();
                        for (Object ignored : (List<?>) args[0]) {
                            each.add(CompletableFuture.failedFuture(new StoreReadOnlyException(REASON)));
                        }
                        return each;
                    }
                    return CompletableFuture.failedFuture(new StoreReadOnlyException(REASON));
                }), c));
             Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort(),
                     ClientOptions.builder().retries(3).retryBackoff(Duration.ofMillis(1)).build(),
                     StoreOptions.defaults())) {
            client.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
            AsyncTable t = client.table("t");
            t.put(Put.of("before").addColumn("f", "q", "v")).get(30, TimeUnit.SECONDS);
            readOnly.set(true);

            assertReadOnly(failure(t.put(Put.of("r").addColumn("f", "q", "v"))));
            assertReadOnly(failure(t.delete(Delete.of("before"))));
            assertReadOnly(failure(t.increment(Increment.of("n").addColumn("f".getBytes(), "n".getBytes(), 1))));
            assertReadOnly(failure(t.checkAndMutate(CheckAndMutate.onRow("r".getBytes())
                    .ifAbsent("f".getBytes(), "q".getBytes()).then(Put.of("r").addColumn("f", "q", "v")))));
            List<CompletableFuture<Object>> batch = t.batch(List.<Mutation>of(Put.of("a").addColumn("f", "q", "v"),
                    Put.of("b").addColumn("f", "q", "v")));
            for (CompletableFuture<Object> each : batch) {
                assertReadOnly(failure(each));
            }
            assertThat(writesTried).as("each write reached the store once: none was sent again").hasValue(5);

            assertThat(t.get(Get.of("before")).get(30, TimeUnit.SECONDS).value("f", "q")).asString().isEqualTo("v");
        }
    }
}
