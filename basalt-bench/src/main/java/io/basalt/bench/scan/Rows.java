package io.basalt.bench.scan;

import io.basalt.cell.Cell;
import io.basalt.client.Put;
import io.basalt.client.Result;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The {@code scan} suite's rows: the seed's slow case, many qualifiers per row. */
final class Rows {

    private Rows() {}

    /** {@code count} results of {@code qualifiers} cells each: 10-byte values under 10-byte rows. */
    static List<Result> make(int count, int qualifiers) {
        List<Result> out = new ArrayList<>(count);
        byte[] family = "f".getBytes(StandardCharsets.UTF_8);
        for (int r = 0; r < count; r++) {
            Put put = new Put(String.format("row%07d", r).getBytes(StandardCharsets.UTF_8), 1L);
            for (int q = 0; q < qualifiers; q++) {
                put.addColumn(family, String.format("q%02d", q).getBytes(StandardCharsets.UTF_8),
                        String.format("value-%04d", q).getBytes(StandardCharsets.UTF_8));
            }
            List<Cell> cells = new ArrayList<>(put.cells());
            out.add(Result.of(cells));
        }
        return out;
    }
}
