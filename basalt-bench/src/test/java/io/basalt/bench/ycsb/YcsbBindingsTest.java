package io.basalt.bench.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.ycsb.BasaltDB;
import io.basalt.ycsb.BindingOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * The suite's two sides answer alike: the same YCSB calls on Basalt's binding and on the RocksDB
 * adapter give the same statuses and values, and one cell runs end to end for each.
 */
class YcsbBindingsTest {

    @TempDir
    Path dir;

    private static Map<String, ByteIterator> fields(String... pairs) {
        Map<String, ByteIterator> values = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            values.put(pairs[i], new StringByteIterator(pairs[i + 1]));
        }
        return values;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> values) {
        Map<String, String> out = new TreeMap<>();
        values.forEach((k, v) -> out.put(k, new String(v.toArray(), StandardCharsets.UTF_8)));
        return out;
    }

    /** A transcript of calls and their answers, which must match between the two sides. */
    private static List<String> script(DB db) {
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            out.add("insert " + db.insert("t", String.format("user%03d", i), fields("field0", "a" + i, "field1", "b" + i)));
        }
        Map<String, ByteIterator> row = new HashMap<>();
        out.add("read " + db.read("t", "user007", null, row) + " " + strings(row));
        row.clear();
        out.add("read some " + db.read("t", "user007", Set.of("field1"), row) + " " + strings(row));
        out.add("read missing " + db.read("t", "nobody", null, new HashMap<>()));
        out.add("update " + db.update("t", "user007", fields("field1", "B")));
        row.clear();
        db.read("t", "user007", null, row);
        out.add("after update " + strings(row));
        Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
        out.add("scan " + db.scan("t", "user025", 10, null, rows));
        rows.forEach(r -> out.add("  " + strings(r)));
        out.add("delete " + db.delete("t", "user007"));
        out.add("read deleted " + db.read("t", "user007", null, new HashMap<>()));
        return out;
    }

    @Test
    void basaltAndTheRocksDbAdapterAnswerAlike() throws Exception {
        Properties basaltProps = new Properties();
        basaltProps.setProperty(BindingOptions.URI, dir.resolve("basalt").toString());
        DB basalt = new BasaltDB();
        basalt.setProperties(basaltProps);
        basalt.init();
        Properties rocksProps = new Properties();
        Files.createDirectories(dir.resolve("rocks"));
        rocksProps.setProperty(RocksYcsbDB.DIR, dir.resolve("rocks").toString());
        DB rocks = new RocksYcsbDB();
        rocks.setProperties(rocksProps);
        rocks.init();
        try {
            List<String> fromBasalt = script(basalt);
            assertThat(fromBasalt).contains("read " + Status.OK + " {field0=a7, field1=b7}",
                    "after update {field0=a7, field1=B}", "read deleted " + Status.NOT_FOUND);
            assertThat(fromBasalt.stream().filter(l -> l.startsWith("  "))).hasSize(5);
            assertThat(script(rocks)).isEqualTo(fromBasalt);
        } finally {
            basalt.cleanup();
            rocks.cleanup();
        }
    }

    /** The RocksDB adapter's record reads its fields in place: each is exactly its bytes, and only those asked for. */
    @Test
    void aRocksRecordDecodesToExactlyItsFields() {
        Map<String, ByteIterator> fields = new LinkedHashMap<>();
        for (int f = 0; f < 5; f++) {
            fields.put("field" + f, new StringByteIterator("value-" + f + "x".repeat(f * 3)));
        }
        byte[] record = RocksYcsbDB.encode(fields);
        Map<String, ByteIterator> all = new HashMap<>();
        RocksYcsbDB.decode(record, null, all);
        assertThat(all).hasSize(5);
        for (int f = 0; f < 5; f++) {
            ByteIterator v = all.get("field" + f);
            assertThat(v.bytesLeft()).isEqualTo(6 + 1 + f * 3);
            assertThat(new String(v.toArray(), StandardCharsets.UTF_8))
                    .isEqualTo("value-" + f + "x".repeat(f * 3));
        }
        Map<String, ByteIterator> some = new HashMap<>();
        RocksYcsbDB.decode(record, Set.of("field1", "field4", "field9"), some);
        assertThat(some.keySet()).containsExactlyInAnyOrder("field1", "field4");
        assertThat(new String(some.get("field4").toArray(), StandardCharsets.UTF_8))
                .isEqualTo("value-4" + "x".repeat(12));
    }

    @Test
    void aCellRunsEveryPhaseAndReportsIt() throws Exception {
        for (String impl : List.of("basalt", "rocksdb")) {
            YcsbCell cell = new YcsbCell();
            Path out = dir.resolve(impl + ".tsv");
            int exit = new picocli.CommandLine(cell).execute("--impl", impl, "--threads", "2", "--records", "500",
                    "--seconds", "1", "--warmup", "0", "--dir", dir.resolve(impl).toString(), "--out", out.toString());
            assertThat(exit).isZero();
            List<String> lines = Files.readAllLines(out);
            for (String phase : YcsbCell.PHASES) {
                assertThat(lines).as(impl + " " + phase).anySatisfy(l -> {
                    String[] f = l.split("\t");
                    assertThat(f[0]).isEqualTo("result");
                    assertThat(f[3]).isEqualTo(phase);
                    assertThat(Double.parseDouble(f[4])).isPositive();
                    assertThat(f[5]).as("failed operations").isEqualTo("0");
                });
            }
            assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("latency\t" + impl + "\t2\tE\tSCAN\t"));
            assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("storage\t" + impl + "\t2\t"));
        }
    }
}
