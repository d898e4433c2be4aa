package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.TreeSet;
import java.util.function.Predicate;
import javax.imageio.ImageIO;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.json.Json;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Issue 22: the status page, loaded in headless Chromium (Debian's {@code chromium} and
 * {@code chromedriver}, driven by Selenium; nothing is downloaded), shows what {@code /api/status}
 * says about a server that has just answered a known workload, and its chart is drawn from
 * {@code /api/history}. Leaves a screenshot in {@code target/status-page.png}.
 *
 * <p>The browser and the driver are required, not optional: without them the test fails and says
 * what to install. {@code -Dbasalt.chromium=PATH} and {@code -Dbasalt.chromedriver=PATH} point it
 * at other binaries.
 */
class StatusPageBrowserTest {

    private static final String INSTALL = "apt-get install -y chromium chromium-driver (or run .ci/run, which"
            + " installs them)";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final Json JSON = new Json();
    /**
     * Selenium warns that it has no DevTools (CDP) classes for this Chromium: the test uses none, so
     * the warning is kept out of the build's output. Held here, as java.util.logging keeps loggers weakly.
     */
    private static final java.util.logging.Logger CDP_LOG = java.util.logging.Logger.getLogger(
            "org.openqa.selenium.devtools.CdpVersionFinder");
    /** The page's chart: height, and the margins its y axis leaves (see draw() in status.html). */
    private static final double CHART_HEIGHT = 200, CHART_TOP = 10, CHART_BOTTOM = 20;

    @TempDir
    Path dir;

    private BasaltServer server;
    private WebDriver driver;

    @AfterEach
    void stop() {
        try {
            if (driver != null) {
                driver.quit();
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void thePageShowsTheServerAndItsChartFollowsTheHistory() throws Exception {
        Path chromium = binary("basalt.chromium", "/usr/bin/chromium", "Chromium (Debian's chromium)");
        Path chromedriver = binary("basalt.chromedriver", "/usr/bin/chromedriver",
                "ChromeDriver (Debian's chromium-driver)");

        // every request is a slow one, so the slow-request section has rows to show
        server = BasaltServer.start(ServerConfig.builder().host("127.0.0.1").port(0).dataDir(dir.resolve("data"))
                .ioThreads(1).slowRequest(Duration.ofNanos(1)).build());
        int rows = 20;
        try (Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            await(client.admin().createTable(TableDescriptor.of("events", "f")));
            await(client.admin().createTable(TableDescriptor.of("users", "f")));
            AsyncTable events = client.table("events");
            AsyncTable users = client.table("users");
            for (int i = 0; i < rows; i++) {
                await(events.put(Put.of("e" + i).addColumn("f", "q", "event " + i)));
                await(users.put(Put.of("u" + i).addColumn("f", "q", "user " + i)));
            }
            // the reads in another second than the writes, so the chart has two seconds with requests
            awaitHistory(p -> p.stream().anyMatch(point -> requests(point) > 0), "a second with requests");
            for (int i = 0; i < rows; i++) {
                assertThat(new String(await(events.get(Get.of("e" + i))).value("f", "q"), StandardCharsets.UTF_8))
                        .isEqualTo("event " + i);
                assertThat(new String(await(users.get(Get.of("u" + i))).value("f", "q"), StandardCharsets.UTF_8))
                        .isEqualTo("user " + i);
            }
            await(client.admin().flush("events"));
        }
        // two seconds with requests, then a quiet one: the counts the page shows stop moving
        awaitHistory(p -> p.stream().filter(point -> requests(point) > 0).count() >= 2
                && requests(p.getLast()) == 0, "two seconds with requests and a quiet one after them");
        Map<String, Object> before = status();
        assertThat(table(before, "events").get("files")).as("the flushed table has a file").isNotEqualTo(0L);
        assertThat(table(before, "users").get("memtableBytes")).as("the other one only a memtable")
                .isNotEqualTo(0L);

        driver = chrome(chromium, chromedriver);
        String page = "http://127.0.0.1:" + server.httpAddress().getPort() + "/";
        driver.get(page);
        new WebDriverWait(driver, WAIT).ignoring(StaleElementReferenceException.class)
                .withMessage(() -> "the page at " + page + " did not fill its sections; it says: "
                        + text(By.tagName("body")))
                .until(d -> !text(By.id("address")).isEmpty()
                        && cells("#tables tbody tr").size() == 2
                        && !cells("#slow tbody tr").isEmpty()
                        && !cells("#config tr").isEmpty()
                        && !cells("#store tr").isEmpty()
                        && chart().lines().size() == 2);
        Path screenshot = screenshot();

        // the page says what /api/status says (read again until they agree: the page re-reads every 2 s)
        agree(() -> {
            Map<String, Object> s = status();
            Map<String, Object> node = map(s.get("node"));
            List<String> wrong = new ArrayList<>();
            same(wrong, "node address", text(By.id("address")), node.get("address"));
            same(wrong, "data directory", text(By.id("data")), node.get("data"));
            same(wrong, "connections", text(By.id("connections")), node.get("connections"));
            same(wrong, "HTTP address", text(By.id("http")), node.get("http"));
            same(wrong, "requests answered", text(By.id("requests")), node.get("requests"));
            Map<String, List<String>> tables = byFirstCell(cells("#tables tbody tr"));
            Map<String, List<String>> regions = byFirstCell(cells("#regions tbody tr"));
            for (Object o : list(s.get("tables"))) {
                Map<String, Object> t = map(o);
                // after the quiet second, the page has looked twice with nothing moving: no reads or writes per second
                same(wrong, "row of table " + t.get("name"), tables.get(String.valueOf(t.get("name"))),
                        shown(t, "name", "disabled", "regions", "files"));
                for (Object ro : list(t.get("regionList"))) {
                    Map<String, Object> g = map(ro);
                    same(wrong, "row of region " + g.get("name"), regions.get(String.valueOf(g.get("name"))),
                            shown(g, "name", "start", "end", "files"));
                }
            }
            same(wrong, "regions listed", regions.size(), 2);
            same(wrong, "tables listed", new TreeSet<>(tables.keySet()), List.of("events", "users"));
            Map<String, List<String>> store = byFirstCell(cells("#store tr"));
            map(s.get("store")).forEach((k, v) -> same(wrong, "store " + k, cell(store, k),
                    k.matches(".*(Bytes|Capacity).*") ? bytes(number(v)) : String.valueOf(v)));
            Map<String, List<String>> config = byFirstCell(cells("#config tr"));
            map(s.get("config")).forEach((k, v) -> same(wrong, "config " + k, cell(config, k), v));
            same(wrong, "config keys", new TreeSet<>(config.keySet()), new TreeSet<>(map(s.get("config")).keySet()));
            List<List<String>> slow = cells("#slow tbody tr");
            List<Object> slowJson = new ArrayList<>(list(s.get("slowRequests")));
            slowJson = slowJson.reversed(); // the page lists the newest first
            same(wrong, "slow requests listed", slow.size(), slowJson.size());
            for (int i = 0; i < Math.min(slow.size(), slowJson.size()); i++) {
                Map<String, Object> r = map(slowJson.get(i));
                List<String> row = slow.get(i);
                same(wrong, "slow request " + i, row.subList(0, 3), List.of(String.valueOf(r.get("at")),
                        String.valueOf(r.get("op")), String.valueOf(r.get("peer"))));
                same(wrong, "slow request " + i + " ms", Double.parseDouble(row.get(3)), number(r.get("millis")));
                same(wrong, "slow request " + i + " status", row.get(4), r.get("status"));
            }
            return wrong;
        });
        Map<String, Object> s = status();
        assertThat(number(map(s.get("node")).get("requests"))).as("two tables created, %d rows written and read,"
                + " one flush", 2 * rows).isEqualTo(2 + 4 * rows + 1);
        assertThat(text(By.id("address"))).isEqualTo("127.0.0.1:" + server.address().getPort());
        assertThat(cell(byFirstCell(cells("#config tr")), "port")).isEqualTo("0");
        assertThat(cell(byFirstCell(cells("#store tr")), "flushes")).isEqualTo("1");
        assertThat(cells("#slow tbody tr")).extracting(r -> r.get(1)).contains("GET", "FLUSH");
        assertThat(text(By.id("uptime"))).matches("\\d+ s");
        assertThat(text(By.id("error"))).isEmpty();
        assertThat(driver.findElement(By.id("cluster")).isDisplayed()).as("a server of its own has no cluster section")
                .isFalse();
        assertThat(s).doesNotContainKey("cluster");

        // the chart is the history: the same seconds, the same values, one drawn point per value
        Chart chart = chart();
        List<Map<String, Object>> history = history();
        List<Long> historyTimes = history.stream().map(p -> (long) number(p.get("t"))).toList();
        assertThat(chart.times()).as("the chart's seconds").hasSizeGreaterThanOrEqualTo(2);
        int from = historyTimes.indexOf(chart.times().getFirst());
        assertThat(from).as("the chart's first second %s is in /api/history %s", chart.times().getFirst(),
                historyTimes).isNotNegative();
        assertThat(historyTimes.subList(from, Math.min(historyTimes.size(), from + chart.times().size())))
                .as("the chart shows a run of /api/history's seconds").isEqualTo(chart.times());
        List<Map<String, Object>> drawn = history.subList(from, from + chart.times().size());
        assertThat(chart.lines()).extracting(Line::series).containsExactlyInAnyOrder("requests", "p99Millis");
        for (Line line : chart.lines()) {
            assertThat(drawn.getFirst()).as("a series of /api/history").containsKey(line.series());
            assertThat(line.values()).as("series %s", line.series())
                    .isEqualTo(drawn.stream().map(p -> number(p.get(line.series()))).toList());
            assertThat(line.points()).as("series %s: one point drawn per value", line.series())
                    .hasSameSizeAs(line.values());
            double max = Math.max(1, line.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
            for (int i = 0; i < line.points().size(); i++) {
                double y = CHART_HEIGHT - CHART_BOTTOM
                        - line.values().get(i) / max * (CHART_HEIGHT - CHART_TOP - CHART_BOTTOM);
                assertThat(line.points().get(i)[1]).as("series %s: point %d's height follows value %s",
                        line.series(), i, line.values().get(i)).isCloseTo(y, Offset.offset(0.06));
                if (i > 0) {
                    assertThat(line.points().get(i)[0]).as("series %s: time runs left to right", line.series())
                            .isGreaterThan(line.points().get(i - 1)[0]);
                }
            }
        }
        List<Double> requests = chart.lines().stream().filter(l -> l.series().equals("requests")).findFirst()
                .orElseThrow().values();
        assertThat(requests).as("the chart shows the workload").anyMatch(v -> v > 0);
        assertThat(requests.stream().mapToDouble(Double::doubleValue).sum())
                .as("every request answered is in the chart (the workload ended before it was drawn)")
                .isEqualTo(number(map(s.get("node")).get("requests")));

        // the rates follow the load: writes to users show as users' writes per second, then fall back to 0
        assertThat(table(s, "users").get("readRequests")).as("each row read once").isEqualTo((long) rows);
        assertThat(table(s, "users").get("writeRequests")).as("each row written once").isEqualTo((long) rows);
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread writer = Thread.ofPlatform().name("users-writer").start(() -> {
            try (Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
                AsyncTable users = client.table("users");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int i = 0; writing.get() && System.nanoTime() < deadline; i++) {
                    users.put(Put.of("w" + i).addColumn("f", "q", "v")).get(10, TimeUnit.SECONDS);
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            new WebDriverWait(driver, WAIT).withMessage(() -> "users' writes per second never rose: "
                    + cells("#tables tbody tr")).until(d -> {
                        Map<String, List<String>> shown = byFirstCell(cells("#tables tbody tr"));
                        return rate(shown.get("users").get(9)) > 0 && shown.get("events").get(9).equals("0.0")
                                && rate(byFirstCell(cells("#regions tbody tr")).values().stream()
                                        .filter(r -> r.getFirst().startsWith("users,")).findFirst().orElseThrow()
                                        .get(9)) > 0;
                    });
        } finally {
            writing.set(false);
            writer.join(TimeUnit.SECONDS.toMillis(30));
        }
        new WebDriverWait(driver, WAIT).withMessage(() -> "users' writes per second never fell back to 0: "
                + cells("#tables tbody tr")).until(d -> byFirstCell(cells("#tables tbody tr")).get("users").get(9)
                .equals("0.0"));
        assertThat(Long.parseLong(byFirstCell(cells("#tables tbody tr")).get("users").get(7)))
                .as("users' writes, the extra ones included").isEqualTo((long) number(table(status(), "users")
                        .get("writeRequests"))).isGreaterThan(rows);

        byte[] png = Files.readAllBytes(screenshot);
        assertThat(png).as(screenshot + " is a PNG").startsWith(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        assertThat(image).as(screenshot + " reads as an image").isNotNull();
        assertThat(image.getWidth()).isPositive();
        assertThat(image.getHeight()).isPositive();
    }

    /** The binary a system property names, or its default; fails, saying what to install, when it is not there. */
    private static Path binary(String property, String fallback, String what) {
        Path path = Path.of(System.getProperty(property, fallback));
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            fail(what + " is needed by StatusPageBrowserTest and is not at " + path + " (-D" + property
                    + "=PATH names another one). Install both packages: " + INSTALL);
        }
        return path;
    }

    private WebDriver chrome(Path chromium, Path chromedriver) {
        CDP_LOG.setLevel(java.util.logging.Level.SEVERE);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1600",
                "--user-data-dir=" + dir.resolve("chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort().withTimeout(WAIT).build();
        WebDriver d = new ChromeDriver(service, options);
        d.manage().timeouts().pageLoadTimeout(WAIT).scriptTimeout(WAIT);
        return d;
    }

    private Path screenshot() throws Exception {
        byte[] png = ((ChromeDriver) driver).getScreenshotAs(OutputType.BYTES);
        Path file = Path.of(System.getProperty("basedir", ".")).resolve("target").resolve("status-page.png");
        Files.createDirectories(file.getParent());
        Files.write(file, png);
        return file;
    }

    /** What the page shows that the server does not say: one line each. */
    @FunctionalInterface
    private interface Mismatches {
        List<String> get() throws Exception;
    }

    /** Waits (bounded) until {@code mismatches} comes back empty; fails with the last ones it returned. */
    private void agree(Mismatches mismatches) {
        List<List<String>> last = new ArrayList<>(List.of(List.of()));
        try {
            new WebDriverWait(driver, WAIT).ignoring(StaleElementReferenceException.class).until(d -> {
                try {
                    last.set(0, mismatches.get());
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return last.getFirst().isEmpty();
            });
        } catch (TimeoutException e) {
            assertThat(last.getFirst()).as("what the page shows, against /api/status").isEmpty();
        }
    }

    private static void same(List<String> wrong, String what, Object shown, Object expected) {
        if (!String.valueOf(shown).equals(String.valueOf(expected))) {
            wrong.add(what + ": the page shows " + shown + ", /api/status says " + expected);
        }
    }

    /**
     * A table's or region's row as the page should show it once nothing moves: the {@code first}
     * fields as they are, then its sizes, its counts and rates of zero.
     */
    private static List<String> shown(Map<String, Object> row, String... first) {
        List<String> cells = new ArrayList<>();
        for (String field : first) {
            cells.add(String.valueOf(row.get(field)));
        }
        cells.addAll(List.of(bytes(number(row.get("sizeBytes"))), bytes(number(row.get("memtableBytes"))),
                String.valueOf(row.get("readRequests")), String.valueOf(row.get("writeRequests")), "0.0", "0.0"));
        return cells;
    }

    /** A rate as the page shows it; "–" (no previous look yet) as -1. */
    private static double rate(String shown) {
        return shown.equals("–") ? -1 : Double.parseDouble(shown);
    }

    private String text(By by) {
        return driver.findElement(by).getText();
    }

    /**
     * The text of each cell of each row {@code rows} (a CSS selector) finds, as shown (innerText).
     * Read in one script: the page replaces its rows every two seconds, faster than a WebDriver
     * call per cell could read a table, which would then keep going stale.
     */
    private List<List<String>> cells(String rows) {
        Object raw = ((JavascriptExecutor) driver).executeScript("""
                return Array.from(document.querySelectorAll(arguments[0]), tr => Array.from(tr.cells, td => td.innerText));
                """, rows);
        return list(raw).stream().map(r -> list(r).stream().map(String::valueOf).toList()).toList();
    }

    private static Map<String, List<String>> byFirstCell(List<List<String>> rows) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        rows.forEach(r -> m.put(r.getFirst(), r));
        return m;
    }

    private static String cell(Map<String, List<String>> pairs, String key) {
        List<String> row = pairs.get(key);
        return row == null ? "(no row " + key + ")" : row.get(1);
    }

    record Line(String series, List<Double> values, List<double[]> points) {}

    record Chart(List<Long> times, List<Line> lines) {}

    /** The chart as one drawing: read in one script, so a redraw cannot fall between its parts. */
    private Chart chart() {
        Object raw = ((JavascriptExecutor) driver).executeScript("""
                const svg = document.getElementById("chart");
                return [svg.getAttribute("data-times") || ""].concat(Array.from(svg.querySelectorAll("polyline"),
                    p => [p.getAttribute("data-series"), p.getAttribute("data-values"), p.getAttribute("points")]));
                """);
        List<?> parts = list(raw);
        List<Long> times = split(String.valueOf(parts.getFirst()), ",").stream().map(Long::valueOf).toList();
        List<Line> lines = new ArrayList<>();
        for (Object o : parts.subList(1, parts.size())) {
            List<?> l = list(o);
            lines.add(new Line(String.valueOf(l.get(0)),
                    split(String.valueOf(l.get(1)), ",").stream().map(Double::valueOf).toList(),
                    split(String.valueOf(l.get(2)), "\\s+").stream()
                            .map(xy -> Arrays.stream(xy.split(",")).mapToDouble(Double::parseDouble).toArray())
                            .toList()));
        }
        return new Chart(times, lines);
    }

    private static List<String> split(String s, String by) {
        return s.isBlank() ? List.of() : List.of(s.strip().split(by));
    }

    /** The page's bytes() (status.html): whole bytes, else one decimal of the largest unit under 1024. */
    static String bytes(double n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int i = 0;
        while (n >= 1024 && i < units.length - 1) {
            n /= 1024;
            i++;
        }
        return (i == 0 ? Long.toString((long) n) : String.format(Locale.ROOT, "%.1f", n)) + " " + units[i];
    }

    private Map<String, Object> status() throws Exception {
        return JSON.toType(get("/api/status"), Json.MAP_TYPE);
    }

    private List<Map<String, Object>> history() throws Exception {
        Map<String, Object> h = JSON.toType(get("/api/history"), Json.MAP_TYPE);
        return list(h.get("points")).stream().map(StatusPageBrowserTest::map).toList();
    }

    /** Polls /api/history until {@code done} holds of its points; bounded, 15 s. */
    private void awaitHistory(Predicate<List<Map<String, Object>>> done, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        List<Map<String, Object>> points = history();
        while (!done.test(points)) {
            if (System.nanoTime() > deadline) {
                fail("/api/history did not show " + what + " within 15 s: " + points);
            }
            Thread.sleep(100);
            points = history();
        }
    }

    private static long requests(Map<String, Object> point) {
        return (long) number(point.get("requests"));
    }

    private String get(String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + server.httpAddress().getPort() + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET " + path).isEqualTo(200);
        return r.body();
    }

    private static Map<String, Object> table(Map<String, Object> status, String name) {
        return list(status.get("tables")).stream().map(StatusPageBrowserTest::map)
                .filter(t -> name.equals(t.get("name"))).findFirst().orElseThrow(() -> new AssertionError(
                        "no table " + name + " in /api/status: " + status));
    }

    private static Map<String, Object> map(Object o) {
        assertThat(o).isInstanceOf(Map.class);
        Map<String, Object> m = new LinkedHashMap<>();
        ((Map<?, ?>) o).forEach((k, v) -> m.put(String.valueOf(k), v));
        return m;
    }

    private static List<?> list(Object o) {
        assertThat(o).isInstanceOf(List.class);
        return (List<?>) o;
    }

    private static double number(Object o) {
        assertThat(o).isInstanceOf(Number.class);
        return ((Number) o).doubleValue();
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }
}
