package io.basalt.hbasecompat;

import static org.assertj.core.api.Assertions.assertThat;

import static io.basalt.hbaseregion.CellText.esc;

import io.basalt.hbasecompat.Gen.Case;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.junit.jupiter.api.Test;

/**
 * Basalt's filters, and this module's harness of HBase's scan ({@link HBaseScan}), against a real
 * HBase 2.6.4 region: random cases from the default generator (so none of the HBase bugs
 * {@link Known} lists) run in basalt-hbase-region's {@code RegionOracle}, a real {@code HRegion}
 * in a JVM of its own (Hadoop 2.10 needs a JDK 17 to 22), scanned from its memstore and again
 * from an HFile. Every answer must match Basalt's, cell for cell, and the harness's too: the
 * harness is what the many more random cases of {@link FiltersAgreeWithHBaseTest} rest on, and it
 * was wrong twice before this test (a store's call ended at a next-row seek; a next-column from
 * the empty qualifier skipped the column), each time making a difference that real HBase does not
 * have. The seed is printed; {@code -Dbasalt.hbasecompat.seed=S} runs a failing one again.
 */
class RealRegionAgreesTest {

    private static final int TREES = 500;
    private static final int SINGLES = 300;

    @Test
    void basaltAndTheHarnessAgreeWithARealHBaseRegion() throws Exception {
        long seed = Long.getLong("basalt.hbasecompat.seed", new SecureRandom().nextLong());
        System.out.println("RealRegionAgreesTest seed " + seed);
        SplittableRandom seeds = new SplittableRandom(seed);
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < TREES + SINGLES; i++) {
            Gen gen = new Gen(new Random(seeds.nextLong()));
            cases.add(i < TREES ? gen.treeCase() : gen.singleCase());
        }

        Path dir = Files.createDirectories(Path.of("target", "real-region"));
        Path in = dir.resolve("cases.tsv");
        Path out = dir.resolve("results.tsv");
        Path log = dir.resolve("oracle.log");
        Files.write(in, cases.stream().map(RealRegionAgreesTest::line).toList(), StandardCharsets.UTF_8);
        // java.nio open, as an HBase server's launcher opens it: without it HBase's FuzzyRowFilter
        // takes a path that reads every mask byte as fixed (HBASE-30256)
        Process oracle = new ProcessBuilder(HBaseJdk.java().toString(), "--add-opens", "java.base/java.nio=ALL-UNNAMED",
                "-cp", oracleClassPath(),
                "io.basalt.hbaseregion.RegionOracle", in.toString(), out.toString(), "10000")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!oracle.waitFor(10, TimeUnit.MINUTES)) {
            oracle.destroyForcibly();
            throw new AssertionError("the HBase region oracle did not finish in 10 minutes; its log: " + log.toAbsolutePath());
        }
        List<String> results = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertThat(oracle.exitValue()).as("the oracle's exit code (3: a scan hung); its log: %s, last result: %s",
                log.toAbsolutePath(), results.isEmpty() ? "none" : results.getLast()).isZero();
        assertThat(results).as("one result per case").hasSize(cases.size());

        List<String> failures = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            String[] real = results.get(i).split("\t", -1);
            String basalt = "OK " + texts(Differ.basaltCells(c));
            String harness = harness(c);
            if (!real[0].equals(real[1]) || !real[0].equals(basalt) || !real[0].equals(harness)) {
                failures.add("case " + i + ": " + c.filter() + (c.reversed() ? " (reversed)" : "") + ", " + c.maxVersions()
                        + " version(s)\n  cells:   " + texts(c.cells()) + "\n  HBase:   " + real[0] + "\n  (HFile:  " + real[1]
                        + ")\n  Basalt:  " + basalt + "\n  harness: " + harness);
            }
        }
        assertThat(failures).as("cases where a real HBase region, Basalt and the harness do not all agree (seed %d)", seed)
                .isEmpty();
    }

    /** The harness's answer in the oracle's form. */
    private static String harness(Case c) {
        try {
            return "OK " + texts(Differ.hbaseCells(c));
        } catch (HBaseScan.DoesNotTerminate e) {
            return "HANG";
        } catch (RuntimeException e) {
            return "THREW " + e.getClass().getName();
        }
    }

    /** {@code reversed TAB versions TAB cells TAB filter}, as RegionOracle reads a case. */
    private static String line(Case c) {
        String cells = c.cells().stream().map(kv -> esc(kv.row()) + "|" + esc(kv.family()) + "|" + esc(kv.qualifier()) + "|"
                + kv.ts() + "|" + esc(kv.value())).collect(Collectors.joining(";"));
        String filter;
        try {
            filter = Base64.getEncoder().encodeToString(ProtobufUtil.toFilter(ToHBase.filter(c.filter())).toByteArray());
        } catch (IOException e) {
            throw new IllegalStateException("HBase cannot serialize " + c.filter(), e);
        }
        return c.reversed() + "\t" + c.maxVersions() + "\t" + cells + "\t" + filter;
    }

    private static String texts(List<Kv> cells) {
        return cells.stream().map(kv -> esc(kv.row()) + "/" + esc(kv.family()) + ":" + esc(kv.qualifier()) + "@" + kv.ts()
                + "=" + esc(kv.value())).collect(Collectors.joining(";"));
    }

    private static String oracleClassPath() throws IOException {
        String classes = System.getProperty("basalt.hbase.region.classes");
        String listed = System.getProperty("basalt.hbase.region.classpath");
        if (classes == null || listed == null || !Files.isDirectory(Path.of(classes)) || !Files.isRegularFile(Path.of(listed))) {
            throw new IllegalStateException("basalt-hbase-region is not built (" + classes + ", " + listed
                    + "): build it first, e.g. ./basalt test -m basalt-hbase-compat builds what this module needs");
        }
        return classes + java.io.File.pathSeparator + Files.readString(Path.of(listed)).strip();
    }
}
