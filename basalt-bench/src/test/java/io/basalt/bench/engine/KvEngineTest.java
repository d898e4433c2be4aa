package io.basalt.bench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KvEngineTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"basalt", "rocksdb"})
    void bothEnginesStoreAndReturnTheSameRows(String impl) throws Exception {
        try (KvEngine engine = KvEngine.open(impl, dir)) {
            engine.load(0, 3000, 1000);
            engine.settle();
            for (int i = 0; i < 3000; i += 97) {
                assertThat(engine.get(i)).isEqualTo(KvEngine.value(i));
            }
            assertThat(engine.get(3001)).isNull();
            assertThat(engine.scan()).isEqualTo(3000L * KvEngine.VALUE_SIZE);
        }
    }

    @Test
    void keysAreDistinctAndScrambled() {
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            keys.add(new String(KvEngine.key(i)));
        }
        assertThat(keys).hasSize(100_000);
        assertThat(new String(KvEngine.key(1)).compareTo(new String(KvEngine.key(2)))).isNotZero();
    }
}
