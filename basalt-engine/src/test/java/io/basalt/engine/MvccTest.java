package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.Durability;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Visibility in sequence order, and acknowledgements that wait for it. */
class MvccTest {

    @Test
    void aWriteIsAcknowledgedOnlyOnceEveryEarlierWriteFinished() {
        Mvcc mvcc = new Mvcc(0);
        Mvcc.Write first = mvcc.begin(1);
        Mvcc.Write second = mvcc.begin(2);
        List<String> acknowledged = new ArrayList<>();

        mvcc.complete(second, () -> acknowledged.add("second"));
        assertThat(mvcc.readPoint()).isZero();
        assertThat(acknowledged).isEmpty();

        mvcc.complete(first, () -> acknowledged.add("first"));
        assertThat(mvcc.readPoint()).isEqualTo(2);
        assertThat(acknowledged).containsExactly("first", "second");
    }

    @Test
    void aWriteWithNothingBeforeItIsAcknowledgedAtOnce() {
        Mvcc mvcc = new Mvcc(7);
        AtomicInteger acks = new AtomicInteger();
        mvcc.complete(mvcc.begin(8), acks::incrementAndGet);
        assertThat(acks).hasValue(1);
        assertThat(mvcc.readPoint()).isEqualTo(8);
    }

    /**
     * Many writers on two tables, each reading its own row right after the put's future completed:
     * every read sees the value. Before acknowledgements waited for the read point, a put could
     * complete while an earlier write of another writer was still finishing, and the read missed it.
     */
    @Test
    void everyAcknowledgedPutIsVisibleToTheNextRead(@TempDir Path dir) throws Exception {
        try (Connection c = Basalt.open(dir, StoreOptions.defaults().withDurability(Durability.ASYNC))) {
            c.admin().createTable(TableDescriptor.of("a", "f")).get(30, TimeUnit.SECONDS);
            c.admin().createTable(TableDescriptor.of("b", "f")).get(30, TimeUnit.SECONDS);
            AtomicInteger misses = new AtomicInteger();
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                int writer = w;
                AsyncTable table = c.table(w % 2 == 0 ? "a" : "b");
                writers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        byte[] row = ("w" + writer + "-" + i).getBytes(StandardCharsets.UTF_8);
                        byte[] value = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
                        table.put(new Put(row).addColumn(bytes("f"), bytes("q"), value)).join();
                        byte[] seen = table.get(new Get(row)).join().value(bytes("f"), bytes("q"));
                        if (seen == null) {
                            misses.incrementAndGet();
                        }
                    }
                }, Thread::startVirtualThread));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            assertThat(misses).hasValue(0);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
