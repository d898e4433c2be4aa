package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Cluster mode's keys of the configuration file. */
class RaftTuningTest {

    private static final Path FILE = Path.of("node.properties");

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void keysApplyOverTheDefaultsAndOtherKeysAreLeftAlone() {
        RaftTuning t = RaftTuning.defaults().withFile(props("cluster.electionTimeoutMinMillis", "3000",
                "cluster.electionTimeoutMaxMillis", "6000", "cluster.snapshotEveryEntries", "5000",
                "cluster.purgeGap", "64", "cluster.leaderLease", "false", "cluster.logSegmentBytes", "1048576",
                "cluster.replication", "1", "cluster.deadNodeTimeoutMillis", "90000", "port", "16020"), FILE);
        assertThat(t.electionTimeoutMin()).isEqualTo(Duration.ofSeconds(3));
        assertThat(t.electionTimeoutMax()).isEqualTo(Duration.ofSeconds(6));
        assertThat(t.snapshotEveryEntries()).isEqualTo(5000);
        assertThat(t.purgeGap()).isEqualTo(64);
        assertThat(t.leaderLease()).isFalse();
        assertThat(t.logSegmentBytes()).isEqualTo(1 << 20);
        assertThat(t.deadNodeTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(RaftTuning.defaults().deadNodeTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(RaftTuning.defaults().withFile(new Properties(), FILE)).isEqualTo(RaftTuning.defaults());
        RaftTuning fast = RaftTuning.defaults().withFile(props("cluster.electionTimeoutMinMillis", "100",
                "cluster.electionTimeoutMaxMillis", "500"), FILE);
        assertThat(fast.electionTimeoutMin()).as("both below the default min, set together")
                .isEqualTo(Duration.ofMillis(100));
        assertThat(fast.electionTimeoutMax()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void anUnknownKeyOrABadValueIsNamedWithTheFile() {
        assertThatThrownBy(() -> RaftTuning.defaults().withFile(props("cluster.electionTimeout", "5"), FILE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node.properties")
                .hasMessageContaining("unknown key cluster.electionTimeout");
        assertThatThrownBy(() -> RaftTuning.defaults().withFile(props("cluster.purgeGap", "many"), FILE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cluster.purgeGap = 'many'");
        assertThatThrownBy(() -> RaftTuning.defaults().withFile(props("cluster.electionTimeoutMaxMillis", "500"), FILE))
                .as("max below the default min").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("min < max");
        assertThatThrownBy(() -> RaftTuning.defaults().withFile(props("cluster.leaderLease", "maybe"), FILE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a boolean");
        assertThatThrownBy(() -> RaftTuning.defaults().withFile(props("cluster.deadNodeTimeoutMillis", "1500"), FILE))
                .as("a node declared dead before an election could even end")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cluster.deadNodeTimeoutMillis = '1500'")
                .hasMessageContaining("longer than the longest election timeout");
    }
}
