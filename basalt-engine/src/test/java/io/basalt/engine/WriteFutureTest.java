package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A write's future yields before it parks, and answers as any {@link CompletableFuture} does. */
class WriteFutureTest {

    @TempDir
    Path dir;

    @Test
    void theFuturesAnEmbeddedTableGivesForWritesWaitByYieldingFirst() throws Exception {
        try (Connection c = Basalt.open(dir)) {
            c.admin().createTable(TableDescriptor.of("t", "f")).get(10, TimeUnit.SECONDS);
            var table = c.table("t");
            CompletableFuture<Void> put = table.put(Put.of("r").addColumn("f", "q", "v"));
            CompletableFuture<Void> delete = table.delete(Delete.of("gone"));
            List<CompletableFuture<Object>> batch = table.batch(List.of(Put.of("a").addColumn("f", "q", "1"),
                    Put.of("b").addColumn("f", "q", "2")));
            assertThat(put).isInstanceOf(WriteFuture.class);
            assertThat(delete).isInstanceOf(WriteFuture.class);
            assertThat(batch).allSatisfy(f -> assertThat(f).isInstanceOf(WriteFuture.class));
            put.get(10, TimeUnit.SECONDS);
            delete.join();
            for (CompletableFuture<Object> f : batch) {
                f.get();
            }
            assertThat(table.get(Get.of("r")).get().value("f", "q")).isEqualTo("v".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertThat(table.get(Get.of("b")).get().value("f", "q")).isEqualTo("2".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Test
    void futuresMadeFromItAreOfItsKind() {
        WriteFuture<Integer> f = new WriteFuture<>();
        assertThat(f.thenApply(x -> x + 1)).isInstanceOf(WriteFuture.class);
        assertThat(f.whenComplete((x, e) -> { })).isInstanceOf(WriteFuture.class);
    }

    @Test
    void waitsGiveTheValueOrTheFailureWhenAnotherThreadCompletesIt() throws Exception {
        WriteFuture<String> value = new WriteFuture<>();
        Thread.ofPlatform().start(() -> {
            sleep(50);
            value.complete("done");
        });
        assertThat(value.get(10, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(value.join()).isEqualTo("done");
        assertThat(value.get()).isEqualTo("done");

        WriteFuture<String> failing = new WriteFuture<>();
        Thread.ofPlatform().start(() -> {
            sleep(50);
            failing.completeExceptionally(new IllegalStateException("disk gone"));
        });
        assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("disk gone");
        assertThatThrownBy(failing::join).isInstanceOf(CompletionException.class).hasRootCauseMessage("disk gone");
    }

    @Test
    void aWaitForAnAnswerThatNeverComesStillTimesOut() {
        WriteFuture<String> never = new WriteFuture<>();
        assertThatThrownBy(() -> never.get(20, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(never::get).isInstanceOf(InterruptedException.class);
    }

    @Test
    void yieldsStopWhileTheyDoNotPayAndAreTriedAgainLater() throws Exception {
        WriteFuture.credit = 0;
        assertThat(completedLater(new WriteFuture<>(), 500).get(10, TimeUnit.SECONDS)).isEqualTo("late");
        assertThat(WriteFuture.credit).as("yielded in vain").isEqualTo(-WriteFuture.PENALTY);
        for (int i = 1; i <= WriteFuture.PENALTY; i++) { // no yields while negative; each wait brings the next try closer
            assertThat(completedLater(new WriteFuture<>(), 20).get(10, TimeUnit.SECONDS)).isEqualTo("late");
            assertThat(WriteFuture.credit).isEqualTo(-WriteFuture.PENALTY + i);
        }
        WriteFuture<String> prompt = new WriteFuture<>() { // answered while its waiter yields
            private int asked;

            @Override
            public boolean isDone() {
                if (++asked == 3) {
                    complete("soon");
                }
                return super.isDone();
            }
        };
        assertThat(prompt.get()).isEqualTo("soon");
        assertThat(WriteFuture.credit).as("yielding paid").isEqualTo(1);
    }

    private static WriteFuture<String> completedLater(WriteFuture<String> future, long millis) {
        Thread.ofPlatform().start(() -> {
            sleep(millis);
            future.complete("late");
        });
        return future;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
