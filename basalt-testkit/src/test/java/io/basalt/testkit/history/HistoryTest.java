package io.basalt.testkit.history;

import static io.basalt.testkit.history.Ops.add;
import static io.basalt.testkit.history.Ops.cas;
import static io.basalt.testkit.history.Ops.read;
import static io.basalt.testkit.history.Ops.readCounter;
import static io.basalt.testkit.history.Ops.run;
import static io.basalt.testkit.history.Ops.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryTest {

    private final History history = new History();

    @Test
    void recordsInvocationsAndCompletionsInTimeOrder() {
        long first = history.invoke(1, write("x", "a"));
        long second = history.invoke(2, read("x"));
        history.ok(second, "a");
        history.info(first);
        long third = history.invoke(3, add("c", 1));
        history.fail(third);

        List<Entry> entries = history.entries();

        assertThat(entries).extracting(Entry::time).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(entries).extracting(Entry::type).containsExactly(Entry.Type.INVOKE, Entry.Type.INVOKE,
                Entry.Type.OK, Entry.Type.INFO, Entry.Type.INVOKE, Entry.Type.FAIL);
        assertThat(entries).extracting(Entry::id).containsExactly(first, second, second, first, third, third);
        assertThat(Set.of(first, second, third)).hasSize(3);
        assertThat(entries.get(2)).isEqualTo(new Entry(3, Entry.Type.OK, second, 2, read("x"), "a"));
        assertThat(entries.get(3).op()).isEqualTo(write("x", "a"));
        assertThat(entries.get(3).client()).isEqualTo(1);
    }

    @Test
    void outputsAreBroughtToTheirCanonicalType() {
        run(history, 1, add("c", 1), 1);
        run(history, 1, readCounter("c"), (short) 1);
        run(history, 1, write("x", "a"), "whatever the client returned");

        assertThat(history.entries()).filteredOn(e -> e.type() == Entry.Type.OK)
                .extracting(Entry::output).containsExactly(1L, 1L, null);
    }

    @Test
    void outputOfTheWrongTypeIsRejectedAndTheOperationStaysOpen() {
        long id = history.invoke(1, cas("x", null, "a"));

        assertThatThrownBy(() -> history.ok(id, "yes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a Boolean");
        assertThatThrownBy(() -> history.ok(history.invoke(1, add("c", 1)), 1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a Long");
        assertThatThrownBy(() -> history.ok(history.invoke(1, read("x")), 3L))
                .isInstanceOf(IllegalArgumentException.class);

        history.ok(id, true);
        assertThat(history.entries()).filteredOn(e -> e.id() == id).hasSize(2);
    }

    @Test
    void completingAnUnknownOrCompletedOperationIsRejected() {
        long id = history.invoke(1, read("x"));
        history.ok(id, null);

        assertThatThrownBy(() -> history.ok(id, null)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> history.info(id)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> history.fail(42)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void keyUsedAsRegisterAndCounterIsRejected() {
        history.invoke(1, write("k", "a"));

        assertThatThrownBy(() -> history.invoke(2, add("k", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"k\"");
        assertThatThrownBy(() -> history.invoke(2, readCounter("k")))
                .isInstanceOf(IllegalArgumentException.class);
        history.invoke(2, cas("k", "a", "b"));
    }

    @Test
    void nonOkEventsCarryNoOutput() {
        assertThatThrownBy(() -> new Entry(1, Entry.Type.INVOKE, 0, 1, read("x"), "a"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrentClientsLoseNoEventAndCompletionsFollowInvocations() throws InterruptedException {
        int threads = 8;
        int perThread = 2_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int client = t;
            workers.add(Thread.ofPlatform().start(() -> {
                awaitQuietly(start);
                for (int i = 0; i < perThread; i++) {
                    long id = history.invoke(client, add("c" + client, 1));
                    history.ok(id, (long) i + 1);
                }
            }));
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }

        List<Entry> entries = history.entries();
        assertThat(entries).hasSize(2 * threads * perThread);
        Set<Long> times = new HashSet<>();
        Map<Long, Long> invokedAt = new HashMap<>();
        for (Entry entry : entries) {
            assertThat(times.add(entry.time())).isTrue();
            if (entry.invocation()) {
                assertThat(invokedAt.put(entry.id(), entry.time())).isNull();
            } else {
                assertThat(entry.time()).isGreaterThan(invokedAt.get(entry.id()));
            }
        }
        assertThat(invokedAt).hasSize(threads * perThread);
        assertThat(Linearizability.check(history).linearizable()).isTrue();
    }

    @Test
    void textFileRoundTripKeepsEveryEvent(@TempDir Path dir) throws IOException {
        run(history, 1, write("plain", "v1"), null);
        run(history, 2, write("with space", "two words"), null);
        run(history, 2, write("tricky", "quote \" backslash \\ newline \n tab \t bell \u0007 é 日本"), null);
        run(history, 3, write("nil", "nil"), null);
        run(history, 3, read("nil"), "nil");
        run(history, 3, read("absent"), null);
        run(history, 1, cas("plain", null, "v2"), false);
        run(history, 1, cas("plain", "v1", "v2"), true);
        run(history, 4, add("counter", -3), -3L);
        run(history, 4, readCounter("counter"), -3L);
        history.info(history.invoke(5, add("counter", Long.MAX_VALUE)));
        history.fail(history.invoke(6, write("plain", "refused")));
        history.invoke(7, read("plain"));
        Path file = dir.resolve("history.txt");

        history.writeTo(file);
        History loaded = History.readFrom(file);

        assertThat(loaded.entries()).isEqualTo(history.entries());
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(history.entries().size() + 1);
        assertThat(lines).contains("2 ok 0 1 write \"plain\" \"v1\"",
                "10 ok 4 3 read \"nil\" -> \"nil\"",
                "12 ok 5 3 read \"absent\" -> nil",
                "14 ok 6 1 cas \"plain\" nil \"v2\" -> false",
                "22 info 10 5 add \"counter\" 9223372036854775807");
        assertThat(Linearizability.check(loaded).verdict()).isEqualTo(Linearizability.check(history).verdict());
    }

    @Test
    void loadedHistoryCanBeCompletedAndExtended(@TempDir Path dir) throws IOException {
        long pending = history.invoke(1, write("x", "a"));
        Path file = dir.resolve("history.txt");
        history.writeTo(file);

        History loaded = History.readFrom(file);
        loaded.ok(pending, null);
        long next = loaded.invoke(2, read("x"));
        loaded.ok(next, "a");

        assertThat(next).isEqualTo(pending + 1);
        assertThat(loaded.entries()).extracting(Entry::time).containsExactly(1L, 2L, 3L, 4L);
        assertThat(Linearizability.check(loaded).linearizable()).isTrue();
    }

    @Test
    void handWrittenHistoryFileCanBeCheckedAsARegressionTest(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("stale-read.txt");
        Files.writeString(file, """
                # the follower served a read after the leader acknowledged the write
                1 invoke 0 1 write "k" "1"
                2 ok 0 1 write "k" "1"

                3 invoke 1 2 read "k"
                4 ok 1 2 read "k" -> nil
                """);

        Linearizability.Result result = Linearizability.check(History.readFrom(file));

        assertThat(result.verdict()).isEqualTo(Linearizability.Result.Verdict.NOT_LINEARIZABLE);
        assertThat(result.key()).isEqualTo("k");
    }

    @Test
    void malformedLineIsReportedWithItsNumber(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.txt");
        Files.writeString(file, """
                1 invoke 0 1 write "k" "1"
                2 ok 0 1 frobnicate "k"
                """);

        assertThatThrownBy(() -> History.readFrom(file))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("line 2")
                .hasMessageContaining("unknown operation frobnicate");

        Files.writeString(file, "1 invoke 0 1 write \"k\n");
        assertThatThrownBy(() -> History.readFrom(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("unterminated string");

        Files.writeString(file, "1 ok 0 1 cas \"k\" nil \"v\" -> 3\n");
        assertThatThrownBy(() -> History.readFrom(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("must be a Boolean");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
