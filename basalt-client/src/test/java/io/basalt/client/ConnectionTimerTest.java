package io.basalt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 7: one periodic-flush timer per connection, not a thread per mutator. */
class ConnectionTimerTest {

    private final String connection = "timer-test-" + System.nanoTime();
    private final ConnectionTimer timer = new ConnectionTimer(connection);

    @AfterEach
    void closeTimer() {
        timer.close();
    }

    private List<Thread> timerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("basalt-mutator-timer " + connection))
                .toList();
    }

    private static void awaitBatch(RecordingTable table) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (table.batches.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(table.batches).as("a timed flush within 10 s").isNotEmpty();
    }

    @Test
    void mutatorsOfOneConnectionShareOneTimerThread() throws Exception {
        RecordingTable first = new RecordingTable();
        RecordingTable second = new RecordingTable();
        BufferedMutator a = timer.mutator(first).periodicFlush(Duration.ofMillis(1)).build();
        BufferedMutator b = timer.mutator(second).periodicFlush(Duration.ofMillis(1)).build();

        a.mutate(Put.of("a").addColumn("f", "q", "v"));
        b.mutate(Put.of("b").addColumn("f", "q", "v"));
        awaitBatch(first);
        awaitBatch(second);

        assertThat(timerThreads()).hasSize(1);
        Thread thread = timerThreads().getFirst();
        assertThat(first.senders).containsExactly(thread);
        assertThat(second.senders).containsExactly(thread);
    }

    @Test
    void noThreadStartsUntilAPeriodicFlushIsArmed() {
        BufferedMutator mutator = timer.mutator(new RecordingTable()).maxMutations(10).build();
        mutator.mutate(Put.of("a").addColumn("f", "q", "v"));
        mutator.close();
        assertThat(timerThreads()).isEmpty();
    }

    @Test
    void closingTheConnectionStopsItsTimerThread() throws Exception {
        RecordingTable table = new RecordingTable();
        BufferedMutator mutator = timer.mutator(table).periodicFlush(Duration.ofMillis(1)).build();
        mutator.mutate(Put.of("a").addColumn("f", "q", "v"));
        awaitBatch(table);
        Thread thread = timerThreads().getFirst();

        timer.close();

        thread.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(thread.isAlive()).isFalse();
        assertThat(timerThreads()).isEmpty();
    }

    @Test
    void aMutatorBuiltOnAClosedConnectionFailsClearly() {
        timer.close();
        assertThatThrownBy(() -> timer.mutator(new RecordingTable()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the connection to " + connection
                        + " is closed; its buffered mutators can no longer flush periodically");
    }

    @Test
    void aTimedMutatorOutlivingItsConnectionFailsClearlyAndBuffersNothing() {
        RecordingTable table = new RecordingTable();
        BufferedMutator mutator = timer.mutator(table).periodicFlush(Duration.ofSeconds(60)).build();
        timer.close();

        assertThatThrownBy(() -> mutator.mutate(Put.of("a").addColumn("f", "q", "v")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed; its buffered mutators can no longer flush periodically");
        assertThat(mutator.buffered()).isZero();
        mutator.close();
        assertThat(table.batches).isEmpty();
    }
}
