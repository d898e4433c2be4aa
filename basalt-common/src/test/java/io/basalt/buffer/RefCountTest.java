package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RefCountTest {

    private final List<Integer> recycledAtCount = new ArrayList<>();
    private final RefCount refCount = new RefCount(rc -> recycledAtCount.add(rc.count()), 3, null);

    @Test
    void startsWithOneReferenceAndALiveRecycler() {
        assertThat(refCount.count()).isEqualTo(1);
        assertThat(refCount.recycler).isNotNull();
        assertThat(refCount.chunk).isEqualTo(3);
    }

    @Test
    void theReleaseThatReachesZeroRecyclesOnceAndNullsTheRecycler() {
        refCount.retain();
        refCount.retain();
        assertThat(refCount.count()).isEqualTo(3);
        assertThat(refCount.release()).isFalse();
        assertThat(refCount.release()).isFalse();
        assertThat(recycledAtCount).isEmpty();
        assertThat(refCount.release()).isTrue();
        assertThat(recycledAtCount).containsExactly(0);
        assertThat(refCount.recycler).isNull();
        assertThat(refCount.count()).isZero();
    }

    @Test
    void aReleasedCountNeverComesBackHoweverOftenRetainIsTried() {
        refCount.release();
        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(refCount::retain).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("retain on a released buffer");
            assertThat(refCount.count()).isZero();
        }
        assertThatThrownBy(refCount::release).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("release on a released buffer");
        assertThat(recycledAtCount).containsExactly(0);
    }

    @Test
    void retainBeyondTheLargestCountFailsAndLeavesTheCountUsable() {
        int max = Integer.MAX_VALUE >>> 1;
        for (int i = 1; i < max; i++) {
            refCount.retain();
        }
        assertThat(refCount.count()).isEqualTo(max);
        assertThatThrownBy(refCount::retain).isInstanceOf(IllegalStateException.class)
                .hasMessage("reference count overflow: a buffer cannot hold more than 1073741823 references");
        assertThat(refCount.count()).isEqualTo(max);
        assertThat(refCount.release()).isFalse();
        assertThat(refCount.count()).isEqualTo(max - 1);
    }
}
