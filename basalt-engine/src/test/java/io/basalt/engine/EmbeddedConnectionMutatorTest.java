package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Basalt;
import io.basalt.client.BufferedMutator;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 7: the embedded connection's mutators share its one periodic-flush timer. */
class EmbeddedConnectionMutatorTest {

    @TempDir
    Path dir;

    private List<Thread> timerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("basalt-mutator-timer " + dir))
                .toList();
    }

    @Test
    void mutatorsShareTheConnectionsTimerWhichStopsWithIt() throws Exception {
        Connection connection = Basalt.open(dir);
        try {
            connection.admin().createTable(TableDescriptor.of("t", "f")).get(10, TimeUnit.SECONDS);
            BufferedMutator a = connection.bufferedMutator("t").periodicFlush(Duration.ofMillis(1)).build();
            BufferedMutator b = connection.bufferedMutator("t").periodicFlush(Duration.ofMillis(1)).build();

            a.mutate(Put.of("a").addColumn("f", "q", "1")).get(10, TimeUnit.SECONDS); // sent by the timer
            b.mutate(Put.of("b").addColumn("f", "q", "2")).get(10, TimeUnit.SECONDS);

            assertThat(connection.table("t").get(Get.of("b")).get(10, TimeUnit.SECONDS).isEmpty()).isFalse();
            assertThat(timerThreads()).hasSize(1);
        } finally {
            connection.close();
        }
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("basalt-mutator-timer " + dir)) {
                t.join(TimeUnit.SECONDS.toMillis(10));
            }
        }
        assertThat(timerThreads()).isEmpty();
        assertThatThrownBy(() -> connection.bufferedMutator("t"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
    }
}
