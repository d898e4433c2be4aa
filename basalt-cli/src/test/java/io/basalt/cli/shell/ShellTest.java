package io.basalt.cli.shell;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShellTest {

    @TempDir
    Path dir;

    private Connection connection;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Shell shell;

    @BeforeEach
    void open() {
        connection = Basalt.open(dir);
        shell = new Shell(connection, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void close() {
        connection.close();
    }

    private String run(String commands) {
        bytes.reset();
        shell.run(commands);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void createPutGetScanLikeHBase() {
        run("create 't', 'f1', {NAME => 'f2', VERSIONS => 3}");
        run("put 't', 'r1', 'f1:a', 'v1'; put 't', 'r2', 'f2:b', 'v2', 7");

        String get = run("get 't', 'r2'");
        assertThat(get).contains("COLUMN").contains(" f2:b").contains("timestamp=7, value=v2").contains("1 row(s)");

        String scan = run("scan 't'");
        assertThat(scan.lines().filter(l -> l.startsWith(" r"))).hasSize(2);
        assertThat(scan).contains("column=f1:a").contains("value=v1").contains("2 row(s)");

        assertThat(run("scan 't', {LIMIT => 1, STARTROW => 'r2'}")).contains(" r2").doesNotContain(" r1 ")
                .contains("1 row(s)");
        assertThat(run("count 't'")).contains("2 row(s)");
    }

    @Test
    void listDescribeDisableDrop() {
        run("create 't', {NAME => 'f', TTL => 60, COMPRESSION => 'LZ4', BLOOMFILTER => 'NONE'}");
        assertThat(run("list")).contains("TABLE\nt\n1 row(s)");
        assertThat(run("describe 't'")).contains("NAME => 'f'").contains("TTL => '60 SECONDS (1 MINUTE)'")
                .contains("COMPRESSION => 'LZ4'").contains("BLOOMFILTER => 'NONE'");
        assertThat(run("disable 't'; drop 't'")).doesNotContain("ERROR");
        assertThat(run("list")).contains("0 row(s)");
    }

    @Test
    void bloomBitsPerKeyIsSetAtCreateAndAlterAndShownByDescribe() {
        run("create 'b', {NAME => 'f', BLOOM_BITS_PER_KEY => 20}");
        assertThat(run("describe 'b'")).contains("BLOOMFILTER => 'ROW', BLOOM_BITS_PER_KEY => '20',");
        run("alter 'b', {NAME => 'f', BLOOM_BITS_PER_KEY => 6}");
        assertThat(run("describe 'b'")).contains("BLOOM_BITS_PER_KEY => '6',");
        assertThat(run("create 'c', {NAME => 'f', BLOOM_BITS_PER_KEY => 1}")).contains("ERROR")
                .contains("bloomBitsPerKey 1 is outside 2..32");
        // a number past an int is refused, not cut to its low bits (2^32 + 16 would be 16)
        assertThat(run("alter 'b', {NAME => 'f', BLOOM_BITS_PER_KEY => 4294967312}")).contains("ERROR")
                .contains("BLOOM_BITS_PER_KEY 4294967312 is too large");
        assertThat(run("describe 'b'")).contains("BLOOM_BITS_PER_KEY => '6',");
        assertThat(run("list")).doesNotContain("\nc\n");
    }

    @Test
    void deletesAndDeleteall() {
        run("create 't', 'f'; put 't', 'r', 'f:a', '1'; put 't', 'r', 'f:b', '2'; put 't', 's', 'f:a', '3'");
        run("delete 't', 'r', 'f:a'");
        assertThat(run("get 't', 'r'")).doesNotContain("f:a").contains("f:b");
        run("deleteall 't', 'r'");
        assertThat(run("get 't', 'r'")).contains("0 row(s)");
        assertThat(run("count 't'")).contains("1 row(s)");
    }

    @Test
    void incrCountsAndBinaryRowsPrintEscaped() {
        run("create 't', 'f'");
        run("incr 't', 'c', 'f:n'");
        assertThat(run("incr 't', 'c', 'f:n', 41")).contains("COUNTER VALUE = 42");
        run("put 't', \"\\x00\\xFF\", 'f:q', 'v'");
        assertThat(run("scan 't'")).contains(" \\x00\\xFF");
    }

    @Test
    void flushAndCompactKeepTheData() {
        run("create 't', 'f'; put 't', 'r', 'f:a', '1'; flush 't'; put 't', 'r', 'f:a', '2'; compact 't'");
        assertThat(run("get 't', 'r'")).contains("value=2");
    }

    @Test
    void errorsAreOneLineAndTheShellGoesOn() {
        String out = run("get 'missing', 'r'; frobnicate; put 't'; scan 't', {LIMT => 1}; create 't', 'f'; list");
        assertThat(out.lines().filter(l -> l.startsWith("ERROR: "))).containsExactly(
                "ERROR: table 'missing' does not exist",
                "ERROR: unknown command 'frobnicate'; type help for the list",
                "ERROR: missing row (argument 2)",
                "ERROR: unknown scan option LIMT (known: LIMIT, STARTROW, STOPROW, COLUMNS, REVERSED, VERSIONS,"
                        + " TIMERANGE, CACHING, CONSISTENCY, FILTER, ROWPREFIXFILTER, RAW)");
        assertThat(out).contains("Created table t").contains("TABLE\nt\n");
        assertThat(out).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void scansAndGetsTakeFiltersInHBasesLanguage() {
        run("create 't', 'f', 'g'; put 't', 'u1', 'f:a', 'x1'; put 't', 'u1', 'f:b', 'y1'; put 't', 'u2', 'f:a', 'x2';"
                + " put 't', 'v1', 'g:c', 'x3'");
        String prefixed = run("scan 't', {FILTER => \"PrefixFilter('u') AND (QualifierFilter(>=, 'binary:b') OR"
                + " ValueFilter(=, 'substring:X2'))\"}");
        assertThat(prefixed).contains("u1").contains("column=f:b").contains("value=x2").doesNotContain("value=x1")
                .doesNotContain("v1").contains("2 row(s)");
        assertThat(run("scan 't', {ROWPREFIXFILTER => 'u1'}")).contains("value=x1").contains("value=y1")
                .doesNotContain("u2").contains("1 row(s)");
        assertThat(run("scan 't', {ROWPREFIXFILTER => 'u', REVERSED => true}").lines()
                .filter(l -> l.startsWith(" u")).map(l -> l.substring(1, 3)).distinct()).containsExactly("u2", "u1");
        assertThat(run("get 't', 'u1', {FILTER => \"ValueFilter(=, 'regexstring:^y')\"}")).contains("value=y1")
                .doesNotContain("value=x1");
        assertThat(run("show_filters")).contains("PrefixFilter").contains("SingleColumnValueFilter");
    }

    @Test
    void alterAddsChangesAndDropsFamiliesLikeHBase() {
        run("create 't', {NAME => 'f', VERSIONS => 1, TTL => 3600}, 'g'; put 't', 'r', 'f:a', '1'; put 't', 'r', 'g:b', '2'");
        assertThat(run("alter 't', NAME => 'f', VERSIONS => 5")).contains("Done.");
        String described = run("describe 't'");
        assertThat(described).contains("VERSIONS => '5'").contains("TTL => '3600 SECONDS (1 HOUR)'");
        assertThat(run("alter 't', 'h', {NAME => 'g', METHOD => 'delete'}")).contains("Done.");
        assertThat(run("describe 't'")).contains("NAME => 'h'").doesNotContain("NAME => 'g'");
        assertThat(run("get 't', 'r'")).contains("f:a").doesNotContain("g:b");
        assertThat(run("alter 't', 'delete' => 'h'")).contains("Done.");
        assertThat(run("describe 't'")).doesNotContain("NAME => 'h'");
        assertThat(run("alter_status 't'")).contains("All regions");
        assertThat(run("alter 't', 'delete' => 'nope'")).contains("ERROR: table t has no column family 'nope'");
        assertThat(run("alter 't', MAX_FILESIZE => 100")).contains("ERROR: table attribute MAX_FILESIZE is not supported");
        assertThat(run("alter 't', 'delete' => 'f'")).contains("ERROR: alter would leave table t without a column family");
    }

    @Test
    void disableReallyRefusesReadsAndWrites() {
        run("create 't', 'f'; put 't', 'r', 'f:a', '1'");
        assertThat(run("is_disabled 't'; is_enabled 't'").lines().filter(l -> !l.startsWith("Took")))
                .containsExactly("false", "true");
        run("disable 't'");
        assertThat(run("is_disabled 't'")).contains("true");
        assertThat(run("get 't', 'r'")).contains("ERROR: table 't' is disabled");
        assertThat(run("put 't', 'r', 'f:b', '2'")).contains("ERROR: table 't' is disabled");
        run("enable 't'");
        assertThat(run("get 't', 'r'")).contains("value=1").doesNotContain("f:b");
        assertThat(run("exists 't'; exists 'nope'")).contains("Table t does exist").contains("Table nope does not exist");
    }

    @Test
    void rawScansShowDeleteMarkersAndWhatTheyMask() {
        run("create 't', {NAME => 'f', VERSIONS => 3}; put 't', 'r', 'f:a', 'old', 1; put 't', 'r', 'f:a', 'new', 3;"
                + " delete 't', 'r', 'f:a', 2");
        assertThat(run("scan 't', {VERSIONS => 3}")).contains("value=new").doesNotContain("value=old").doesNotContain("type=");
        String raw = run("scan 't', {RAW => true, VERSIONS => 3}");
        assertThat(raw).contains("timestamp=2, type=DeleteColumn").contains("value=new").contains("value=old");
        assertThat(raw.indexOf("value=new")).isLessThan(raw.indexOf("type=DeleteColumn"));
        assertThat(raw.indexOf("type=DeleteColumn")).isLessThan(raw.indexOf("value=old"));
        assertThat(run("scan 't', {RAW => true, FILTER => \"KeyOnlyFilter()\"}")).contains("ERROR: a raw scan takes no filter");
    }

    @Test
    void describeListAndCountPrintAsHBaseDoes() {
        run("create 'app.users', {NAME => 'f', TTL => 90061}; create 'app.items', 'f'; create 'other', 'f'");
        String described = run("describe 'app.users'");
        assertThat(described).contains("Table app.users is ENABLED\napp.users\nCOLUMN FAMILIES DESCRIPTION")
                .contains("{NAME => 'f', BLOOMFILTER => 'ROW', BLOOM_BITS_PER_KEY => '16', VERSIONS => '1', COMPRESSION => 'NONE',"
                        + " TTL => '90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)', BLOCKSIZE => '");
        run("disable 'other'");
        assertThat(run("describe 'other'")).contains("Table other is DISABLED");
        assertThat(run("list 'app\\..*'")).contains("app.items\napp.users\n2 row(s)").doesNotContain("other");
        for (int i = 0; i < 25; i++) {
            run("put 'app.items', 'r" + (char) ('a' + i) + "', 'f:q', 'v'");
        }
        String counted = run("count 'app.items', INTERVAL => 10, CACHE => 5");
        assertThat(counted).contains("Current count: 10, row: rj").contains("Current count: 20, row: rt").contains("25 row(s)");
        assertThat(run("snapshot 'app.items', 's1'")).contains("ERROR: snapshot is not supported by Basalt; copy a store");
        assertThat(run("list '('")).contains("ERROR: list takes a regular expression");
    }

    @Test
    void appendAndGetCounter() {
        run("create 't', 'f'");
        assertThat(run("append 't', 'r', 'f:s', 'ab'")).contains("CURRENT VALUE = ab");
        assertThat(run("append 't', 'r', 'f:s', \"\\x00c\"")).contains("CURRENT VALUE = ab\\x00c");
        run("incr 't', 'c', 'f:n', 5");
        assertThat(run("get_counter 't', 'c', 'f:n'")).contains("COUNTER VALUE = 5");
        assertThat(run("get_counter 't', 'nope', 'f:n'")).contains("No counter found");
        assertThat(run("get_counter 't', 'r', 'f:s'")).contains("ERROR: value of 4 bytes is not a counter");
    }

    @Test
    void badFiltersAreRefusedByName() {
        run("create 't', 'f'");
        assertThat(run("scan 't', {FILTER => \"ColumnValueFilter('f', 'a', =, 'binary:x')\"}"))
                .contains("ERROR: ColumnValueFilter is not supported by Basalt; use SingleColumnValueFilter");
        assertThat(run("scan 't', {FILTER => \"PrefixFilter('u'\"}")).contains("ERROR: filter expression, at character");
        assertThat(run("scan 't', {FILTER => \"ValueFilter(=, 'regexstring:a(')\"}"))
                .contains("ERROR: ValueFilter: regular expression 'a(' does not parse");
        assertThat(run("scan 't', {FILTER => 42}")).contains("ERROR: FILTER takes a string in the filter language");
        assertThat(run("scan 't', {ROWPREFIXFILTER => 'u', STARTROW => 'a'}"))
                .contains("ERROR: ROWPREFIXFILTER sets the start and stop rows");
    }

    @Test
    void getsAndScansTakeAConsistency() {
        run("create 't', 'f'; put 't', 'r', 'f:a', '1'");
        assertThat(run("get 't', 'r', {CONSISTENCY => 'TIMELINE'}")).contains("value=1");
        assertThat(run("scan 't', {CONSISTENCY => 'strong'}")).contains("value=1");
        assertThat(run("get 't', 'r', {CONSISTENCY => 'EVENTUAL'}"))
                .contains("ERROR: CONSISTENCY is 'STRONG' or 'TIMELINE', not 'EVENTUAL'");
    }

    @Test
    void outcomeReportsErrorsAndExit() {
        assertThat(shell.run("create 't', 'f'")).isEqualTo(Shell.Outcome.OK);
        assertThat(shell.run("get 'nope', 'r'")).isEqualTo(Shell.Outcome.ERROR);
        assertThat(shell.run("list; exit; list")).isEqualTo(Shell.Outcome.EXIT);
        assertThat(shell.run("put 't', 'r")).isEqualTo(Shell.Outcome.ERROR);
    }

    /**
     * Issue 22: {@code status} of an embedded store says what it holds and what was asked of it;
     * {@code 'detailed'} splits that per region (a get and each row a scan returns is a read, each
     * mutation a write).
     */
    @Test
    void statusShowsTheStoreAndDetailedEachRegion() {
        run("create 't', 'f', SPLITS => ['m']; create 'u', 'f'");
        run("put 't', 'a', 'f:q', '1'; put 't', 'b', 'f:q', '2'; put 't', 'x', 'f:q', '3'");
        run("get 't', 'a'; scan 't'; flush 't'");

        String simple = run("status");
        assertThat(simple).doesNotContain("ERROR").contains("embedded " + dir + ", open for ")
                .contains("2 table(s), 3 region(s), 2 file(s), ").contains("block cache 0 B of 256.0 MiB, no lookups yet")
                .contains("4 row(s) read, 3 mutation(s) applied; 2 flush(es), 0 compaction(s) (0 running), 0 write stall(s)")
                .doesNotContain("REGION_NAME");
        assertThat(withoutTimes(run("status 'summary'"))).isEqualTo(withoutTimes(simple));

        String detailed = run("status 'detailed'");
        assertThat(detailed).contains("write-ahead log: ").contains("REGION_NAME | START_KEY | END_KEY | SIZE | FILES"
                + " | MEMTABLE | READS | WRITES").contains("3 region(s)");
        assertThat(detailed.lines().filter(l -> l.startsWith(" t,,")).findFirst().orElseThrow())
                .matches(" t,,\\d+ +\\|  +\\| m +\\| [1-9]\\d* +\\| 1 +\\| 0 +\\| 3 +\\| 2");
        assertThat(detailed.lines().filter(l -> l.startsWith(" t,m,")).findFirst().orElseThrow())
                .matches(" t,m,\\d+ +\\| m +\\|  +\\| [1-9]\\d* +\\| 1 +\\| 0 +\\| 1 +\\| 1");
        assertThat(detailed.lines().filter(l -> l.startsWith(" u,,")).findFirst().orElseThrow())
                .matches(" u,,\\d+ +\\|  +\\|  +\\| 0 +\\| 0 +\\| 0 +\\| 0 +\\| 0");

        assertThat(shell.run("status 'loud'")).isEqualTo(Shell.Outcome.ERROR);
        assertThat(run("status 'loud'")).contains("status takes 'simple', 'summary' or 'detailed', not 'loud'");
    }

    /** The output without its uptime and the time the command took. */
    private static String withoutTimes(String output) {
        return output.replaceAll("open for [^,\\n]+", "open for T").replaceAll("Took [0-9.]+ seconds", "Took T");
    }

    @Test
    void helpListsTheCommands() {
        assertThat(run("help")).contains("create").contains("scan").contains("deleteall").contains("exit");
    }

    @Test
    void preSplitListLocateSplitAndMergeRegions() {
        assertThat(run("create 't', 'f', SPLITS => ['g', 'n']")).contains("Created table t with 3 regions");
        String regions = run("list_regions 't'");
        assertThat(regions).contains("REGION_NAME").contains("START_KEY").contains("3 row(s)");
        assertThat(regions.lines().filter(l -> l.startsWith(" t,"))).hasSize(3);
        run("put 't', 'a', 'f:q', '1'; put 't', 'h', 'f:q', '2'; put 't', 'x', 'f:q', '3'");
        assertThat(run("locate_region 't', 'h'")).contains("STARTKEY => 'g'").contains("ENDKEY => 'n'");
        assertThat(run("split 't', 'k'")).contains("now has 4 region(s)");
        assertThat(run("split 't', 'k'")).contains("ERROR").contains("not inside region");
        String[] names = run("list_regions 't'").lines().filter(l -> l.startsWith(" t,"))
                .map(l -> l.substring(1, l.indexOf(' ', 1))).toArray(String[]::new);
        assertThat(names).hasSize(4);
        assertThat(run("merge_region '" + names[1] + "', '" + names[2] + "'")).contains("now has 3 region(s)");
        assertThat(run("merge_region '" + names[0] + "', '" + names[3] + "'")).contains("ERROR");
        assertThat(run("count 't'")).contains("3 row(s)");
        assertThat(run("count '" + names[0] + "'")).as("the first region holds only a").contains("1 row(s)");
        assertThat(run("flush '" + names[0] + "'; compact '" + names[0] + "'")).doesNotContain("ERROR");
        assertThat(run("count 't,zz,999'")).contains("ERROR").contains("no region");
        assertThat(run("scan 't'")).contains(" a ").contains(" h ").contains(" x ");
    }

    @Test
    void preSplitByAlgorithmAndClearErrors() {
        assertThat(run("create 'h', 'f', {NUMREGIONS => 4, SPLITALGO => 'HexStringSplit'}"))
                .contains("with 4 regions");
        assertThat(run("list_regions 'h'")).contains("40000000").contains("c0000000");
        assertThat(run("create 'u', 'f', {NUMREGIONS => 2, SPLITALGO => 'UniformSplit'}")).contains("with 2 regions");
        assertThat(run("create 'x', 'f', SPLITS => ['n', 'g']")).contains("ERROR").contains("strictly ascending");
        assertThat(run("create 'x', 'f', {NUMREGIONS => 4}")).contains("ERROR").contains("SPLITALGO");
        assertThat(run("create 'x', 'f', {SPLITALGO => 'Nope', NUMREGIONS => 3}")).contains("ERROR")
                .contains("HexStringSplit");
        assertThat(run("create 'x', SPLITS => ['a']")).contains("ERROR").contains("column family");
        assertThat(run("list")).doesNotContain("\nx\n");
    }

    @Test
    void truncateAndTruncatePreserve() {
        run("create 't', {NAME => 'f', VERSIONS => 3}, SPLITS => ['m']; put 't', 'a', 'f:q', '1'; put 't', 'z', 'f:q', '2'");
        run("flush 't'; put 't', 'b', 'f:q', '3'");
        assertThat(run("truncate_preserve 't'")).contains("Truncating 't' table, keeping its region boundaries")
                .doesNotContain("ERROR");
        assertThat(run("count 't'")).contains("0 row(s)");
        assertThat(run("list_regions 't'")).contains("2 row(s)");
        assertThat(run("describe 't'")).contains("VERSIONS => '3'");
        run("put 't', 'c', 'f:q', '4'");
        assertThat(run("truncate 't'")).contains("Truncating 't' table").doesNotContain("ERROR");
        assertThat(run("count 't'")).contains("0 row(s)");
        assertThat(run("list_regions 't'")).contains("1 row(s)");
        assertThat(run("truncate 'nope'")).contains("ERROR").contains("nope");
    }
}
