package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A row of 100,000 columns streams over the network in parts bounded by {@code maxResultSize}
 * when the caller allows partial results, and comes whole when it does not.
 */
class WideRowScanTest {

    private static final int COLUMNS = 100_000;
    private static final long MAX_RESULT_SIZE = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void aHundredThousandColumnRowStreamsInBoundedParts() throws Exception {
        try (BasaltServer server = BasaltServer.start(ServerConfig.defaults().withPort(0).withDataDir(dir));
             Connection c = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            c.admin().createTable(TableDescriptor.of("wide", "f")).get(30, TimeUnit.SECONDS);
            AsyncTable table = c.table("wide");
            byte[] f = bytes("f");
            for (int start = 0; start < COLUMNS; start += 10_000) {
                Put put = new Put(bytes("w"));
                for (int q = start; q < start + 10_000; q++) {
                    put.addColumn(f, bytes(String.format("q%06d", q)), bytes("v" + q));
                }
                table.put(put).get(30, TimeUnit.SECONDS);
            }
            table.put(new Put(bytes("x")).addColumn(f, bytes("q"), bytes("after"))).get(30, TimeUnit.SECONDS);

            int parts = 0;
            int cells = 0;
            String previous = "";
            try (ResultScanner s = table.scanner(new Scan().setAllowPartialResults(true)
                    .setMaxResultSize(MAX_RESULT_SIZE))) {
                for (Result r = s.next(); r != null && new String(r.row(), StandardCharsets.UTF_8).equals("w");
                     r = s.next()) {
                    parts++;
                    long bytes = 0;
                    for (Cell cell : r.cells()) {
                        String q = new String(cell.qualifierBytes(), StandardCharsets.UTF_8);
                        assertThat(q).isGreaterThan(previous);
                        previous = q;
                        bytes += CellLayout.encodedLength(cell);
                    }
                    assertThat(bytes).isLessThanOrEqualTo(MAX_RESULT_SIZE);
                    assertThat(r.isPartial()).isEqualTo(cells + r.size() < COLUMNS);
                    cells += r.size();
                }
            }
            assertThat(cells).isEqualTo(COLUMNS);
            assertThat(parts).isGreaterThan(10);

            List<Result> whole = new ArrayList<>();
            try (ResultScanner s = table.scanner(new Scan().setMaxResultSize(MAX_RESULT_SIZE))) {
                s.forEach(whole::add);
            }
            assertThat(whole).extracting(Result::size).containsExactly(COLUMNS, 1);
            assertThat(whole.getFirst().isPartial()).isFalse();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
