package io.basalt.lock;

import static io.basalt.lock.LockLevel.NAMESPACE;
import static io.basalt.lock.LockLevel.ROW;
import static io.basalt.lock.LockLevel.TABLE;
import static io.basalt.lock.LockMode.READ;
import static io.basalt.lock.LockMode.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.bytes.Bytes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Single-thread semantics: levels, reentrancy, the safety checks, handles and bulk requests. */
class LockManagerTest {

    static final Duration NO_WAIT = Duration.ZERO;

    private final LockManager locks = LockManager.builder()
            .level(NAMESPACE, 16, true)
            .level(TABLE, 64, true)
            .level(ROW, 256, false)
            .build();
    private final Background other = new Background("other");

    @AfterEach
    void stopOther() throws InterruptedException {
        other.close();
    }

    static byte[] k(String s) {
        return Bytes.utf8(s);
    }

    /** A key other than {@code key} that maps to the same stripe of {@code level}. */
    static byte[] collidingWith(LockManager locks, LockLevel level, byte[] key) {
        int stripe = locks.stripeOf(level, key);
        for (int i = 0; ; i++) {
            byte[] candidate = k("collide-" + i);
            if (locks.stripeOf(level, candidate) == stripe && !Bytes.toStringBinary(candidate).equals(Bytes.toStringBinary(key))) {
                return candidate;
            }
        }
    }

    /** Whether another thread could take {@code key} in {@code mode} right now (it releases at once). */
    boolean otherCanTake(LockLevel level, byte[] key, LockMode mode) throws Exception {
        return other.call(() -> {
            try (LockHandle _ = locks.lock(level, key, mode, NO_WAIT)) {
                return true;
            } catch (LockTimeoutException e) {
                return false;
            }
        });
    }

    // ---- basics ----

    @ParameterizedTest
    @ValueSource(strings = {"namespace", "table", "row"})
    void writeExcludesEveryoneAndReadExcludesOnlyWriters(String levelName) throws Exception {
        LockLevel level = locks.levels().stream().filter(l -> l.name().equals(levelName)).findFirst().orElseThrow();
        byte[] key = k("users");
        try (LockHandle _ = locks.lock(level, key, WRITE)) {
            assertThat(otherCanTake(level, key, READ)).isFalse();
            assertThat(otherCanTake(level, key, WRITE)).isFalse();
        }
        try (LockHandle _ = locks.lock(level, key, READ)) {
            assertThat(otherCanTake(level, key, READ)).isTrue();
            assertThat(otherCanTake(level, key, WRITE)).isFalse();
        }
        assertThat(otherCanTake(level, key, WRITE)).isTrue();
    }

    @Test
    void keysOfDifferentStripesDoNotExcludeEachOther() throws Exception {
        byte[] a = k("a");
        byte[] b = k("b");
        assertThat(locks.stripeOf(ROW, a)).isNotEqualTo(locks.stripeOf(ROW, b));
        try (LockHandle _ = locks.lock(ROW, a, WRITE)) {
            assertThat(otherCanTake(ROW, b, WRITE)).isTrue();
        }
    }

    @Test
    void levelsHaveSeparateStripes() throws Exception {
        byte[] key = k("same-name");
        try (LockHandle _ = locks.lock(TABLE, key, WRITE)) {
            assertThat(otherCanTake(ROW, key, WRITE)).isTrue();
            assertThat(otherCanTake(NAMESPACE, key, WRITE)).isTrue();
        }
    }

    @Test
    void twoComponentKeysAreHashedWithoutConcatenation() {
        // The combination is of the components' hashes: splitting the same bytes differently is a
        // different resource, and a stripe is computed for it without building "ab" + "c".
        int abC = locks.stripeOf(ROW, k("ab"), k("c"));
        int aBc = locks.stripeOf(ROW, k("a"), k("bc"));
        assertThat(KeyHash.of(k("ab"), k("c"))).isNotEqualTo(KeyHash.of(k("a"), k("bc")));
        assertThat(abC).isBetween(0, 255);
        assertThat(aBc).isBetween(0, 255);
    }

    @Test
    void keysSpreadEvenlyOverTheStripes() {
        int[] perStripe = new int[locks.stripes(ROW)];
        int keys = 256 * 200;
        for (int i = 0; i < keys; i++) {
            perStripe[locks.stripeOf(ROW, k(String.format("user%016d", i)))]++;
        }
        // Sequential keys differ in a byte or two; the finalizer must still spread them: with 200
        // keys per stripe on average, a uniform hash keeps every stripe within ±40%.
        for (int n : perStripe) {
            assertThat(n).isBetween(120, 280);
        }
    }

    @Test
    void stripeCountsArePowersOfTwoAndLevelsMustBeConfigured() {
        assertThatThrownBy(() -> LockManager.builder().level(ROW, 100, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
        assertThatThrownBy(() -> LockManager.builder().level(ROW, 8, false).level(new LockLevel("rows", 30), 8, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("share rank 30");
        assertThatThrownBy(() -> LockManager.builder().build()).isInstanceOf(IllegalStateException.class);
        LockManager rowsOnly = LockManager.builder().level(ROW, 8, false).build();
        assertThatThrownBy(() -> rowsOnly.lock(TABLE, k("t"), READ))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock level table (rank 20) is not configured");
        assertThatThrownBy(() -> new LockLevel("too-deep", 63)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        LockManager defaults = LockManager.create();
        assertThat(defaults.levels()).containsExactly(NAMESPACE, TABLE, ROW);
        assertThat(defaults.stripes(NAMESPACE)).isEqualTo(LockManager.DEFAULT_NAMESPACE_STRIPES);
        assertThat(defaults.stripes(TABLE)).isEqualTo(LockManager.DEFAULT_TABLE_STRIPES);
        assertThat(defaults.stripes(ROW)).isEqualTo(LockManager.DEFAULT_ROW_STRIPES);
        assertThat(defaults.metrics().get(TABLE).readerBiased()).isTrue();
        assertThat(defaults.metrics().get(ROW).readerBiased()).isFalse();
    }

    @Test
    void aCustomLevelSitsBetweenTheBuiltInOnes() {
        LockLevel region = new LockLevel("region", 25);
        LockManager withRegions = LockManager.builder().defaultLevels().level(region, 32, false).build();
        assertThat(withRegions.levels()).containsExactly(NAMESPACE, TABLE, region, ROW);
        try (LockHandle _ = withRegions.lock(TABLE, k("t"), READ);
             LockHandle _ = withRegions.lock(region, k("r1"), WRITE);
             LockHandle _ = withRegions.lock(ROW, k("row"), WRITE)) {
            assertThat(withRegions.held()).hasSize(3);
        }
        try (LockHandle _ = withRegions.lock(ROW, k("row"), WRITE)) {
            assertThatThrownBy(() -> withRegions.lock(region, k("r1"), READ)).isInstanceOf(LockOrderException.class);
        }
    }

    // ---- level order ----

    @Test
    void takingATableLockWhileHoldingARowLockFailsAtOnceNamingBoth() {
        try (LockHandle _ = locks.lock(TABLE, k("users"), READ);
             LockHandle _ = locks.lock(ROW, k("users"), k("row-7"), WRITE)) {
            assertThatThrownBy(() -> locks.lock(TABLE, k("orders"), READ))
                    .isInstanceOf(LockOrderException.class)
                    .hasMessageContaining("cannot take a READ lock on table 'orders'")
                    .hasMessageContaining("row 'users' / 'row-7'")
                    .hasMessageContaining("WRITE")
                    .hasMessageNotContaining("table 'users'");
        }
        assertThat(locks.held()).isEmpty();
    }

    @Test
    void takingANamespaceLockWhileHoldingATableLockFails() {
        try (LockHandle _ = locks.lock(TABLE, k("users"), READ)) {
            assertThatThrownBy(() -> locks.lock(NAMESPACE, k("default"), READ))
                    .isInstanceOf(LockOrderException.class)
                    .hasMessageContaining("namespace 'default'")
                    .hasMessageContaining("table 'users'");
        }
    }

    @Test
    void theOrderRuleHoldsEvenForAStripeAlreadyHeld() {
        // Reentrant or not, the answer must not depend on whether two tables happen to collide.
        try (LockHandle _ = locks.lock(TABLE, k("users"), READ);
             LockHandle _ = locks.lock(ROW, k("row"), WRITE)) {
            assertThatThrownBy(() -> locks.lock(TABLE, k("users"), READ)).isInstanceOf(LockOrderException.class);
        }
    }

    @Test
    void manyLocksOfOneLevelAndDescendingAfterReleaseAreAllowed() {
        try (LockHandle _ = locks.lock(ROW, k("a"), WRITE);
             LockHandle _ = locks.lock(ROW, k("b"), WRITE)) {
            assertThat(locks.held()).hasSize(2);
        }
        try (LockHandle _ = locks.lock(ROW, k("a"), WRITE)) {
            assertThat(locks.held()).hasSize(1);
        }
        try (LockHandle _ = locks.lock(TABLE, k("t"), WRITE)) {
            assertThat(locks.held()).hasSize(1);
        }
    }

    // ---- reentrancy ----

    @Test
    void readAfterReadIsReentrantAndTheStripeStaysReadLockedUntilTheLastClose() throws Exception {
        byte[] key = k("users");
        LockHandle first = locks.lock(TABLE, key, READ);
        LockHandle second = locks.lock(TABLE, key, READ);
        assertThat(locks.held()).singleElement().satisfies(h -> assertThat(h.count()).isEqualTo(2));
        first.close();
        assertThat(otherCanTake(TABLE, key, WRITE)).isFalse();
        second.close();
        assertThat(otherCanTake(TABLE, key, WRITE)).isTrue();
    }

    @Test
    void aReentrantReadIsGrantedWhileAWriterIsQueued() throws Exception {
        // Readers queue behind a waiting writer; a thread that already reads must not, or it
        // would wait for the writer that waits for it.
        byte[] key = k("users");
        LockHandle first = locks.lock(ROW, key, READ);
        var writer = other.submit(() -> {
            try (LockHandle _ = locks.lock(ROW, key, WRITE)) {
                return true;
            }
        });
        other.awaitBlocked();
        try (LockHandle _ = locks.lock(ROW, key, READ, NO_WAIT)) {
            assertThat(writer).isNotDone();
        }
        first.close();
        assertThat(writer.get()).isTrue();
    }

    @Test
    void writeAfterWriteAndReadAfterWriteAreReentrant() throws Exception {
        byte[] key = k("users");
        try (LockHandle _ = locks.lock(TABLE, key, WRITE);
             LockHandle _ = locks.lock(TABLE, key, WRITE, NO_WAIT);
             LockHandle _ = locks.lock(TABLE, key, READ, NO_WAIT)) {
            assertThat(locks.held()).singleElement().satisfies(h -> {
                assertThat(h.count()).isEqualTo(3);
                assertThat(h.mode()).isEqualTo(WRITE);
            });
        }
        assertThat(otherCanTake(TABLE, key, WRITE)).isTrue();
    }

    @Test
    void aWriteRequestOnAStripeHeldForReadFailsAtOnceNamingBothKeys() {
        byte[] held = k("users");
        byte[] asked = collidingWith(locks, TABLE, held);
        try (LockHandle _ = locks.lock(TABLE, held, READ)) {
            assertThatThrownBy(() -> locks.lock(TABLE, held, WRITE))
                    .isInstanceOf(LockUpgradeException.class)
                    .hasMessageContaining("cannot take a WRITE lock on table 'users'")
                    .hasMessageContaining("holds that stripe for READ (taken for 'users')");
            // Reentrancy is per stripe: another key on the same stripe is the same lock.
            assertThatThrownBy(() -> locks.lock(TABLE, asked, WRITE))
                    .isInstanceOf(LockUpgradeException.class)
                    .hasMessageContaining("table '" + Bytes.toStringBinary(asked) + "'")
                    .hasMessageContaining("taken for 'users'");
            assertThat(locks.held()).singleElement().satisfies(h -> assertThat(h.count()).isEqualTo(1));
        }
    }

    @Test
    void aCollidingKeyOfAHeldStripeIsGrantedReentrantly() throws Exception {
        byte[] a = k("users");
        byte[] b = collidingWith(locks, ROW, a);
        try (LockHandle _ = locks.lock(ROW, a, WRITE);
             LockHandle _ = locks.lock(ROW, b, WRITE, NO_WAIT)) {
            assertThat(locks.held()).hasSize(1);
        }
        assertThat(otherCanTake(ROW, b, WRITE)).isTrue();
    }

    @Test
    void closingTheLastWriteWhileReadingDowngradesWithoutReleasing() throws Exception {
        byte[] key = k("users");
        LockHandle write = locks.lock(ROW, key, WRITE);
        LockHandle read = locks.lock(ROW, key, READ);
        write.close();
        assertThat(locks.held()).singleElement().satisfies(h -> assertThat(h.mode()).isEqualTo(READ));
        assertThat(otherCanTake(ROW, key, READ)).isTrue();
        assertThat(otherCanTake(ROW, key, WRITE)).isFalse();
        // Now a plain reader: asking for WRITE again is an upgrade.
        assertThatThrownBy(() -> locks.lock(ROW, key, WRITE)).isInstanceOf(LockUpgradeException.class);
        read.close();
        assertThat(otherCanTake(ROW, key, WRITE)).isTrue();
    }

    // ---- handles ----

    @Test
    void aHandleClosedTwiceFails() {
        LockHandle h = locks.lock(ROW, k("a"), WRITE);
        h.close();
        assertThatThrownBy(h::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed more often");
    }

    @Test
    void aHandleIsClosedByTheThreadThatTookIt() throws Exception {
        LockHandle h = locks.lock(ROW, k("a"), WRITE);
        try {
            Throwable e = other.call(() -> {
                try {
                    h.close();
                    return null;
                } catch (IllegalStateException expected) {
                    return expected;
                }
            });
            assertThat(e).hasMessageContaining("closed by the thread that took it").hasMessageContaining("'other'");
            assertThat(locks.held()).hasSize(1);
        } finally {
            h.close();
        }
    }

    @Test
    void takingAndReleasingAllocatesNoNewHandleOnceWarm() {
        // Handles are recycled: the same object comes back for the same kind of acquisition.
        LockHandle first = locks.lock(ROW, k("a"), WRITE);
        first.close();
        LockHandle second = locks.lock(ROW, k("b"), WRITE);
        second.close();
        assertThat(second).isSameAs(first);
    }

    // ---- bulk ----

    @Test
    void bulkTakesEachStripeOnceEvenForDuplicatesAndCollisions() throws Exception {
        byte[] a = k("a");
        List<byte[]> keys = List.of(a, k("b"), a.clone(), collidingWith(locks, ROW, a), k("c"));
        Set<Integer> stripes = new HashSet<>();
        for (byte[] key : keys) {
            stripes.add(locks.stripeOf(ROW, key));
        }
        try (LockHandle _ = locks.lockAll(ROW, keys, WRITE)) {
            List<HeldLock> held = locks.held();
            assertThat(held).hasSize(stripes.size()).allSatisfy(h -> assertThat(h.count()).isEqualTo(1));
            assertThat(held).extracting(HeldLock::stripe).containsExactlyInAnyOrderElementsOf(stripes);
            assertThat(otherCanTake(ROW, k("c"), READ)).isFalse();
        }
        assertThat(locks.held()).isEmpty();
        assertThat(otherCanTake(ROW, a, WRITE)).isTrue();
    }

    @Test
    void bulkWithAPrefixLocksTheTwoComponentResources() throws Exception {
        byte[] table = k("users");
        try (LockHandle _ = locks.lockAll(ROW, table, List.of(k("r1"), k("r2")), WRITE, NO_WAIT)) {
            assertThat(other.call(() -> {
                try (LockHandle _ = locks.lock(ROW, table, k("r2"), WRITE, NO_WAIT)) {
                    return true;
                } catch (LockTimeoutException e) {
                    return false;
                }
            })).isFalse();
        }
    }

    @Test
    void aFailedBulkRequestReleasesWhatItTook() throws Exception {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            keys.add(k("row-" + i));
        }
        byte[] blocked = keys.get(7);
        LockHandle othersHold = other.call(() -> locks.lock(ROW, blocked, WRITE));
        try {
            assertThatThrownBy(() -> locks.lockAll(ROW, keys, WRITE, Duration.ofMillis(20)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("row 'row-7'")
                    .hasMessageContaining("held for WRITE by 'other'");
            assertThat(locks.metrics().get(ROW).timeouts()).as("the timeout is counted").isEqualTo(1);
            assertThat(locks.held()).singleElement().satisfies(h -> assertThat(h.thread()).isEqualTo("'other'"));
            for (byte[] key : keys) {
                if (locks.stripeOf(ROW, key) != locks.stripeOf(ROW, blocked)) {
                    try (LockHandle h = locks.lock(ROW, key, WRITE, NO_WAIT)) {
                        assertThat(h).isNotNull();
                    }
                }
            }
        } finally {
            other.call(() -> {
                othersHold.close();
                return null;
            });
        }
    }

    @Test
    void aBulkRequestThatWouldUpgradeFailsAndKeepsTheEarlierHold() {
        try (LockHandle _ = locks.lock(ROW, k("b"), READ)) {
            assertThatThrownBy(() -> locks.lockAll(ROW, List.of(k("a"), k("b"), k("c")), WRITE))
                    .isInstanceOf(LockUpgradeException.class);
            assertThat(locks.held()).singleElement().satisfies(h -> {
                assertThat(h.resource()).isEqualTo("'b'");
                assertThat(h.count()).isEqualTo(1);
            });
        }
    }

    @Test
    void aBulkHandleClosesOnce() {
        LockHandle all = locks.lockAll(ROW, List.of(k("a"), k("b")), READ);
        all.close();
        assertThat(locks.held()).isEmpty();
        assertThatThrownBy(all::close).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void nullKeysAreRejected() {
        assertThatThrownBy(() -> locks.lock(ROW, (byte[]) null, READ)).isInstanceOf(NullPointerException.class);
        List<byte[]> keys = new ArrayList<>();
        keys.add(k("a"));
        keys.add(null);
        assertThatThrownBy(() -> locks.lockAll(ROW, keys, READ))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("key 1");
        assertThat(locks.held()).isEmpty();
    }

    @Test
    void everyReachableManagerIsListedThroughPrunings() {
        List<LockManager> kept = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            LockManager m = LockManager.builder().level(ROW, 2, false).build();
            if (i % 3 == 0) {
                kept.add(m); // the others become garbage, and prunings drop them once collected
            }
            if (i % 250 == 0) {
                System.gc();
            }
        }
        Set<LockManager> listed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        listed.addAll(LockManager.instances());
        assertThat(listed).containsAll(kept);
        assertThat(listed).doesNotContainNull();
    }
}
