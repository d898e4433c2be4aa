package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.buffer.BufferPoolConfig.Exhaustion;
import io.basalt.buffer.BufferPoolConfig.LeakDetection;
import org.junit.jupiter.api.Test;

class BufferPoolConfigTest {

    private static final BufferPoolConfig VALID = new BufferPoolConfig("p", 1024, 64, 4096, Exhaustion.FAIL, 64,
            LeakDetection.ALL, 1);

    @Test
    void defaultsAreFourMegabyteSlabsOfSixtyFourKilobyteChunksUpToOneGigabyteFailingWhenExhausted() {
        BufferPoolConfig defaults = BufferPoolConfig.defaults();
        assertThat(defaults.name()).isEqualTo("default");
        assertThat(defaults.slabSize()).isEqualTo(4 << 20);
        assertThat(defaults.chunkSize()).isEqualTo(64 << 10);
        assertThat(defaults.maxMemory()).isEqualTo(1L << 30);
        assertThat(defaults.onExhaustion()).isEqualTo(Exhaustion.FAIL);
        assertThat(defaults.heapFallbackMaxSize()).isEqualTo(64 << 10);
        assertThat(defaults.leakSampleInterval()).isEqualTo(128);
        assertThat(defaults.chunksPerSlab()).isEqualTo(64);
        assertThat(defaults.maxSlabs()).isEqualTo(256);
        assertThat(defaults.maxChunks()).isEqualTo(16384);
    }

    @Test
    void defaultLeakDetectionComesFromTheSystemPropertyWhichTheTestBuildSetsToAll() {
        assertThat(System.getProperty(BufferPoolConfig.LEAK_DETECTION_PROPERTY)).isEqualTo("all");
        assertThat(BufferPoolConfig.defaults().leakDetection()).isEqualTo(LeakDetection.ALL);
    }

    @Test
    void defaultLeakDetectionWithoutThePropertyIsSampledAndAnUnknownValueIsRejected() {
        String saved = System.getProperty(BufferPoolConfig.LEAK_DETECTION_PROPERTY);
        try {
            System.clearProperty(BufferPoolConfig.LEAK_DETECTION_PROPERTY);
            assertThat(BufferPoolConfig.defaults().leakDetection()).isEqualTo(LeakDetection.SAMPLED);
            System.setProperty(BufferPoolConfig.LEAK_DETECTION_PROPERTY, "paranoid");
            assertThatThrownBy(BufferPoolConfig::defaults).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("unknown leak detection level 'paranoid'; expected one of off, sampled, all");
        } finally {
            System.setProperty(BufferPoolConfig.LEAK_DETECTION_PROPERTY, saved);
        }
    }

    @Test
    void leakDetectionLevelsParseInAnyCaseAroundWhitespace() {
        assertThat(LeakDetection.parse("off")).isEqualTo(LeakDetection.OFF);
        assertThat(LeakDetection.parse(" Sampled ")).isEqualTo(LeakDetection.SAMPLED);
        assertThat(LeakDetection.parse("ALL")).isEqualTo(LeakDetection.ALL);
    }

    @Test
    void withersChangeOnlyTheirSettings() {
        BufferPoolConfig changed = VALID.withName("q").withSizes(2048, 128, 8192)
                .withExhaustion(Exhaustion.HEAP_FALLBACK, 100).withLeakDetection(LeakDetection.SAMPLED, 7);
        assertThat(changed).isEqualTo(new BufferPoolConfig("q", 2048, 128, 8192, Exhaustion.HEAP_FALLBACK, 100,
                LeakDetection.SAMPLED, 7));
    }

    @Test
    void chunkSizeMustBeAPowerOfTwoBetweenSixteenBytesAndOneGigabyte() {
        assertThat(VALID.withSizes(16, 16, 16).chunkSize()).isEqualTo(16);
        assertThat(VALID.withSizes(1 << 30, 1 << 30, 1L << 30).chunkSize()).isEqualTo(1 << 30);
        for (int bad : new int[] {8, 48, 0, -16}) {
            assertThatThrownBy(() -> VALID.withSizes(1024, bad, 4096)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("chunkSize must be a power of two from 16 to 1073741824, was " + bad);
        }
    }

    @Test
    void slabSizeMustBeAPositiveMultipleOfTheChunkSize() {
        assertThat(VALID.withSizes(192, 64, 192).chunksPerSlab()).isEqualTo(3);
        for (int bad : new int[] {32, 100, 0, -64}) {
            assertThatThrownBy(() -> VALID.withSizes(bad, 64, 4096)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("slabSize must be a positive multiple of chunkSize (64), was " + bad);
        }
    }

    @Test
    void maxMemoryMustBeAPositiveMultipleOfTheSlabSizeAndCountFewerThanTwoBillionChunks() {
        assertThat(VALID.withSizes(1024, 64, 3072).maxSlabs()).isEqualTo(3);
        for (long bad : new long[] {512, 1500, 0}) {
            assertThatThrownBy(() -> VALID.withSizes(1024, 64, bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxMemory must be a positive multiple of slabSize (1024), was " + bad);
        }
        assertThatThrownBy(() -> VALID.withSizes(1024, 16, 1L << 40)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxMemory / chunkSize must stay below 2^31 chunks, was " + (1L << 36));
    }

    @Test
    void theOtherSettingsAreCheckedToo() {
        assertThatThrownBy(() -> VALID.withExhaustion(Exhaustion.HEAP_FALLBACK, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heapFallbackMaxSize must not be negative, was -1");
        assertThatThrownBy(() -> VALID.withLeakDetection(LeakDetection.SAMPLED, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leakSampleInterval must be at least 1, was 0");
        assertThatThrownBy(() -> VALID.withName(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be blank");
        assertThatThrownBy(() -> VALID.withName(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> VALID.withExhaustion(null, 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> VALID.withLeakDetection(null, 1)).isInstanceOf(NullPointerException.class);
    }
}
