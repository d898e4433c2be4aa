package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Scan;
import io.basalt.client.ServerStatus;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: each region counts the rows read from it (a get, each row a scan returns) and the
 * mutations applied to it (each of a batch), and the store's status and metrics show them.
 */
class RegionRequestCountsTest {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readsAndWritesCountInTheRegionThatServedThem() throws Exception {
        try (Connection c = Basalt.open(dir)) {
            c.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("m"))).join();
            AsyncTable t = c.table("t");
            // writes: a batch of three in [,m) and one in [m,), a check-and-mutate and an increment in [m,)
            t.batch(List.of(Put.of("a").addColumn("f", "q", "1"), Put.of("b").addColumn("f", "q", "2"),
                    Put.of("c").addColumn("f", "q", "3"), Put.of("x").addColumn("f", "q", "4")))
                    .forEach(java.util.concurrent.CompletableFuture::join);
            assertThat(t.checkAndMutate(CheckAndMutate.onRow(b("x")).ifEquals(b("f"), b("q"), b("4"))
                    .then(Put.of("x").addColumn("f", "q", "5"))).join()).isTrue();
            t.increment(Increment.of("y").addColumn(b("f"), b("n"), 1)).join();
            // reads: two gets in [,m), a scan of both regions (3 + 2 rows), a scan limited to 2 rows
            t.get(Get.of("a")).join();
            t.get(Get.of("zz")).join(); // a row that is not there is a read of [m,) all the same
            assertThat(t.scanAll(new Scan()).join()).hasSize(5);
            assertThat(t.scanAll(new Scan().setLimit(2)).join()).hasSize(2);

            ServerStatus status = StoreMetrics.of(c).status("here", 0);
            ServerStatus.Table table = status.tables().getFirst();
            assertThat(table.regions()).hasSize(2);
            ServerStatus.Region low = table.regions().get(0);
            ServerStatus.Region high = table.regions().get(1);
            assertThat(low.writeRequests()).isEqualTo(3);
            assertThat(high.writeRequests()).isEqualTo(3);
            assertThat(low.readRequests()).as("get a, 3 scanned, 2 of the limited scan").isEqualTo(6);
            assertThat(high.readRequests()).as("get zz, 2 scanned").isEqualTo(3);
            assertThat(status.readRequests()).isEqualTo(9);
            assertThat(status.writeRequests()).isEqualTo(6);
        }
    }
}
