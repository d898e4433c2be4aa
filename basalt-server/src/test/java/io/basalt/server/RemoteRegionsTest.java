package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableNotFoundException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Regions over the wire: pre-split create, list, locate, split and merge through the network client. */
class RemoteRegionsTest {

    @TempDir
    Path dir;

    private BasaltServer server;
    private Connection connection;

    @BeforeEach
    void start() throws Exception {
        server = BasaltServer.start(ServerConfig.defaults().withPort(0).withDataDir(dir).withIoThreads(1));
        connection = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort());
    }

    @AfterEach
    void stop() {
        connection.close();
        server.close();
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void regionsAreCreatedListedLocatedSplitAndMergedOverTheWire() throws Exception {
        await(connection.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("g"), b("n"))));
        List<RegionInfo> regions = await(connection.admin().listRegions("t"));
        assertThat(regions).extracting(r -> new String(r.start(), StandardCharsets.UTF_8)).containsExactly("", "g", "n");
        assertThat(regions).allSatisfy(r -> assertThat(r.table()).isEqualTo("t"));
        for (String row : List.of("a", "h", "z")) {
            await(connection.table("t").put(Put.of(row).addColumn("f", "q", row)));
        }
        RegionInfo h = await(connection.admin().locateRegion("t", b("h")));
        assertThat(h.start()).isEqualTo(b("g"));
        assertThat(h.end()).isEqualTo(b("n"));
        assertThat(h.memtableBytes()).isPositive();

        await(connection.admin().split("t", b("k")));
        assertThat(await(connection.admin().listRegions("t"))).hasSize(4);
        assertThatThrownBy(() -> await(connection.admin().split("t", b("k"))))
                .hasMessageContaining("not inside region");

        List<RegionInfo> four = await(connection.admin().listRegions("t"));
        await(connection.admin().mergeRegions("t", four.get(0).name(), four.get(1).name()));
        assertThat(await(connection.admin().listRegions("t"))).hasSize(3);
        assertThatThrownBy(() -> await(connection.admin().mergeRegions("t", four.get(2).name(), "t,x,12345")))
                .hasMessageContaining("has no region");

        List<Result> rows = await(connection.table("t").scanAll(new Scan()));
        assertThat(rows).extracting(r -> new String(r.row(), StandardCharsets.UTF_8)).containsExactly("a", "h", "z");

        await(connection.admin().truncateTable("t", true));
        assertThat(await(connection.table("t").scanAll(new Scan()))).isEmpty();
        assertThat(await(connection.admin().listRegions("t"))).hasSize(3);
        assertThatThrownBy(() -> await(connection.admin().truncateTable("nope", false)))
                .hasCauseInstanceOf(TableNotFoundException.class);
    }

    @Test
    void badSplitKeysAndUnknownTablesGetClearErrors() throws Exception {
        assertThatThrownBy(() -> await(connection.admin().createTable(TableDescriptor.of("t", "f"),
                List.of(b("n"), b("g"))))).hasMessageContaining("strictly ascending");
        assertThatThrownBy(() -> await(connection.admin().listRegions("nope")))
                .hasCauseInstanceOf(TableNotFoundException.class);
        assertThatThrownBy(() -> await(connection.admin().locateRegion("nope", b("a"))))
                .hasCauseInstanceOf(TableNotFoundException.class);
        await(connection.admin().createTable(TableDescriptor.of("t", "f")));
        assertThat(await(connection.admin().listRegions("t"))).hasSize(1);
    }
}
