package io.basalt.testkit.history;

import static io.basalt.testkit.history.Ops.add;
import static io.basalt.testkit.history.Ops.cas;
import static io.basalt.testkit.history.Ops.read;
import static io.basalt.testkit.history.Ops.readCounter;
import static io.basalt.testkit.history.Ops.run;
import static io.basalt.testkit.history.Ops.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.testkit.history.Linearizability.Result;
import io.basalt.testkit.history.Linearizability.Result.Verdict;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LinearizabilityTest {

    private final History history = new History();

    private Result check() {
        return Linearizability.check(history);
    }

    private void assertLinearizable() {
        Result result = check();
        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.linearizable()).isTrue();
        assertThat(result.key()).isNull();
    }

    private Result assertNotLinearizable(String key) {
        Result result = check();
        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.linearizable()).isFalse();
        assertThat(result.unknown()).isFalse();
        assertThat(result.key()).isEqualTo(key);
        return result;
    }

    @Nested
    class SequentialHistories {

        @Test
        void registerOperationsThatFollowTheModelAreLinearizable() {
            run(history, 1, read("x"), null);
            run(history, 1, write("x", "a"), null);
            run(history, 2, read("x"), "a");
            run(history, 2, cas("x", "a", "b"), true);
            run(history, 1, cas("x", "a", "c"), false);
            run(history, 1, read("x"), "b");
            run(history, 3, write("x", "b"), null);
            run(history, 3, read("x"), "b");

            assertLinearizable();
        }

        @Test
        void staleReadAfterAnotherWriteIsNotLinearizable() {
            run(history, 1, write("x", "a"), null);
            run(history, 1, write("x", "b"), null);
            run(history, 2, read("x"), "a");

            assertNotLinearizable("x");
        }

        @Test
        void lostWriteIsNotLinearizable() {
            run(history, 1, write("x", "a"), null);
            run(history, 2, read("x"), null);

            assertNotLinearizable("x");
        }

        @Test
        void readOfAValueNobodyWroteIsNotLinearizable() {
            run(history, 1, write("x", "a"), null);
            run(history, 2, read("x"), "z");

            assertNotLinearizable("x");
        }

        @Test
        void casThatShouldHaveFailedButSucceededIsNotLinearizable() {
            run(history, 1, write("x", "a"), null);
            run(history, 2, cas("x", "b", "c"), true);

            assertNotLinearizable("x");
        }

        @Test
        void casThatShouldHaveSucceededButFailedIsNotLinearizable() {
            run(history, 1, write("x", "a"), null);
            run(history, 2, cas("x", "a", "c"), false);

            assertNotLinearizable("x");
        }

        @Test
        void casExpectingNothingAppliesOnlyToAnAbsentKey() {
            run(history, 1, cas("x", null, "a"), true);
            run(history, 1, read("x"), "a");
            run(history, 2, cas("x", null, "b"), false);
            assertLinearizable();

            run(history, 2, cas("x", null, "b"), true);
            assertNotLinearizable("x");
        }

        @Test
        void counterOperationsThatFollowTheModelAreLinearizable() {
            run(history, 1, readCounter("c"), 0L);
            run(history, 1, add("c", 2), 2L);
            run(history, 2, add("c", 3), 5L);
            run(history, 2, add("c", -1), 4L);
            run(history, 1, readCounter("c"), 4L);

            assertLinearizable();
        }

        @Test
        void counterThatSkippedIsNotLinearizable() {
            run(history, 1, add("c", 1), 1L);
            run(history, 2, add("c", 1), 3L);

            assertNotLinearizable("c");
        }

        @Test
        void counterThatRepeatedIsNotLinearizable() {
            run(history, 1, add("c", 1), 1L);
            run(history, 2, add("c", 1), 1L);

            assertNotLinearizable("c");
        }

        @Test
        void absentCounterThatReadsNonZeroIsNotLinearizable() {
            run(history, 1, readCounter("c"), 1L);

            assertNotLinearizable("c");
        }
    }

    @Nested
    class ConcurrentHistories {

        @ParameterizedTest
        @ValueSource(strings = {"a", "b"})
        void readOverlappingAWriteMaySeeTheOldOrTheNewValue(String seen) {
            run(history, 1, write("x", "a"), null);
            long write = history.invoke(1, write("x", "b"));
            long read = history.invoke(2, read("x"));
            history.ok(read, seen);
            history.ok(write, null);

            assertLinearizable();
        }

        @Test
        void readOverlappingAWriteCannotSeeAThirdValue() {
            run(history, 1, write("x", "a"), null);
            long write = history.invoke(1, write("x", "b"));
            long read = history.invoke(2, read("x"));
            history.ok(read, null);
            history.ok(write, null);

            assertNotLinearizable("x");
        }

        @Test
        void classicAnomalyReadAfterCompletedWriteReturnsTheOldValue() {
            run(history, 1, write("x", "0"), null);
            run(history, 1, write("x", "1"), null);
            run(history, 2, read("x"), "0");

            Result result = assertNotLinearizable("x");
            assertThat(result.explanation())
                    .contains("key \"x\"")
                    .contains("read \"x\" -> \"0\"")
                    .contains("holds \"1\"")
                    .contains("write \"x\" \"1\"");
            assertThat(result.operations()).isEqualTo(3);
        }

        @Test
        void readsMustNotSeeANewValueAndThenTheOldOneAgain() {
            // The write of b is still running, so the first read may see b; but then b has taken effect, and a
            // read invoked after the first one completed can no longer see a.
            run(history, 1, write("x", "a"), null);
            long write = history.invoke(1, write("x", "b"));
            run(history, 2, read("x"), "b");
            run(history, 3, read("x"), "a");
            history.ok(write, null);

            assertNotLinearizable("x");
        }

        @ParameterizedTest
        @ValueSource(strings = {"a", "b"})
        void overlappingWritesMayTakeEffectInEitherOrder(String winner) {
            long first = history.invoke(1, write("x", "a"));
            long second = history.invoke(2, write("x", "b"));
            history.ok(first, null);
            history.ok(second, null);
            run(history, 3, read("x"), winner);
            run(history, 3, read("x"), winner);

            assertLinearizable();
        }

        @Test
        void laterReadsCannotDisagreeOnWhichOverlappingWriteWon() {
            long first = history.invoke(1, write("x", "a"));
            long second = history.invoke(2, write("x", "b"));
            history.ok(first, null);
            history.ok(second, null);
            run(history, 3, read("x"), "a");
            run(history, 3, read("x"), "b");

            assertNotLinearizable("x");
        }

        @ParameterizedTest
        @ValueSource(longs = {1, 2})
        void overlappingAddsMayTakeEffectInEitherOrder(long firstOutput) {
            long one = history.invoke(1, add("c", 1));
            long two = history.invoke(2, add("c", 2));
            history.ok(two, firstOutput == 1 ? 3L : 2L);
            history.ok(one, firstOutput == 1 ? 1L : 3L);

            assertLinearizable();
        }

        @Test
        void overlappingAddsCannotBothSeeTheInitialValue() {
            long one = history.invoke(1, add("c", 1));
            long two = history.invoke(2, add("c", 2));
            history.ok(two, 2L);
            history.ok(one, 1L);

            assertNotLinearizable("c");
        }

        @Test
        void overlappingCasOnTheSameExpectedValueCannotBothApply() {
            long one = history.invoke(1, cas("x", null, "a"));
            long two = history.invoke(2, cas("x", null, "b"));
            history.ok(one, true);
            history.ok(two, false);
            assertLinearizable();

            long three = history.invoke(1, cas("y", null, "a"));
            long four = history.invoke(2, cas("y", null, "b"));
            history.ok(three, true);
            history.ok(four, true);
            assertNotLinearizable("y");
        }
    }

    @Nested
    class IndeterminateAndFailedOperations {

        @ParameterizedTest
        @ValueSource(strings = {"a", "b"})
        void indeterminateWriteMayOrMayNotHaveTakenEffect(String seen) {
            run(history, 1, write("x", "a"), null);
            history.info(history.invoke(1, write("x", "b")));
            run(history, 2, read("x"), seen);
            run(history, 2, read("x"), seen);

            assertLinearizable();
        }

        @Test
        void indeterminateWriteMayTakeEffectLongAfterItsInvocation() {
            run(history, 1, write("x", "a"), null);
            history.info(history.invoke(1, write("x", "b")));
            run(history, 2, read("x"), "a");
            run(history, 3, write("x", "c"), null);
            run(history, 2, read("x"), "c");
            run(history, 2, read("x"), "b");

            assertLinearizable();
        }

        @Test
        void indeterminateWriteObservedAndThenGoneIsNotLinearizable() {
            run(history, 1, write("x", "a"), null);
            history.info(history.invoke(1, write("x", "b")));
            run(history, 2, read("x"), "b");
            run(history, 2, read("x"), "a");

            Result result = assertNotLinearizable("x");
            assertThat(result.explanation()).contains("(outcome unknown)");
        }

        @Test
        void indeterminateWriteCannotTakeEffectBeforeItsInvocation() {
            run(history, 1, write("x", "a"), null);
            run(history, 2, read("x"), "b");
            history.info(history.invoke(1, write("x", "b")));

            assertNotLinearizable("x");
        }

        @Test
        void operationNeverCompletedIsTreatedAsIndeterminate() {
            run(history, 1, write("x", "a"), null);
            history.invoke(1, write("x", "b"));
            run(history, 2, read("x"), "a");
            run(history, 2, read("x"), "b");
            assertLinearizable();

            run(history, 2, read("x"), "a");
            assertNotLinearizable("x");
        }

        @Test
        void indeterminateAndUnfinishedReadsAreIgnored() {
            run(history, 1, write("x", "a"), null);
            history.info(history.invoke(2, read("x")));
            history.invoke(3, read("x"));
            history.info(history.invoke(4, readCounter("c")));

            Result result = check();
            assertThat(result.linearizable()).isTrue();
            assertThat(result.operations()).isEqualTo(1);
        }

        @ParameterizedTest
        @ValueSource(longs = {0, 5})
        void indeterminateAddMayOrMayNotHaveTakenEffect(long seen) {
            history.info(history.invoke(1, add("c", 5)));
            run(history, 2, readCounter("c"), seen);
            run(history, 2, add("c", 1), seen + 1);

            assertLinearizable();
        }

        @Test
        void indeterminateAddObservedAndThenGoneIsNotLinearizable() {
            history.info(history.invoke(1, add("c", 5)));
            run(history, 2, readCounter("c"), 5L);
            run(history, 2, readCounter("c"), 0L);

            assertNotLinearizable("c");
        }

        @Test
        void indeterminateCasTakesEffectOnlyWhenItsExpectedValueIsThere() {
            run(history, 1, write("x", "a"), null);
            history.info(history.invoke(1, cas("x", "a", "b")));
            run(history, 2, read("x"), "b");
            assertLinearizable();

            run(history, 1, write("y", "a"), null);
            history.info(history.invoke(1, cas("y", "z", "b")));
            run(history, 2, read("y"), "b");
            assertNotLinearizable("y");
        }

        @Test
        void indeterminateWriteOfAValueNobodyReadCanStillExplainAFailedCas() {
            // The read-nothing-then-CAS-fails pattern only linearizes if the unobserved write of z took effect;
            // the checker must not discard such a write as useless.
            run(history, 1, read("x"), null);
            history.info(history.invoke(1, write("x", "z")));
            run(history, 2, cas("x", null, "a"), false);

            assertLinearizable();
        }

        @Test
        void failedOperationsAreIgnored() {
            run(history, 1, write("x", "a"), null);
            history.fail(history.invoke(1, write("x", "b")));
            history.fail(history.invoke(1, add("c", 5)));
            run(history, 2, read("x"), "a");
            run(history, 2, readCounter("c"), 0L);
            assertLinearizable();

            run(history, 2, read("x"), "b");
            assertNotLinearizable("x");
        }
    }

    @Nested
    class KeysAndResults {

        @Test
        void eachKeyIsCheckedOnItsOwn() {
            run(history, 1, write("x", "a"), null);
            run(history, 2, read("y"), null);
            run(history, 1, add("c", 1), 1L);
            run(history, 2, read("x"), "a");
            assertLinearizable();

            run(history, 2, read("y"), "a");
            assertNotLinearizable("y");
        }

        @Test
        void resultCountsOperationsAndStates() {
            run(history, 1, write("x", "a"), null);
            run(history, 1, read("x"), "a");
            run(history, 2, add("c", 1), 1L);

            Result result = check();
            assertThat(result.linearizable()).isTrue();
            assertThat(result.operations()).isEqualTo(3);
            assertThat(result.statesExplored()).isEqualTo(3);
            assertThat(result.explanation()).contains("3 operations on 2 keys");
        }

        @Test
        void emptyHistoryIsLinearizable() {
            assertLinearizable();
        }

        @Test
        void searchBoundTurnsAHardKeyIntoUnknown() {
            manyConcurrentWritesThenARead("x");

            Result bounded = Linearizability.check(history.entries(), 5);
            assertThat(bounded.verdict()).isEqualTo(Verdict.UNKNOWN);
            assertThat(bounded.unknown()).isTrue();
            assertThat(bounded.linearizable()).isFalse();
            assertThat(bounded.key()).isEqualTo("x");
            assertThat(bounded.explanation()).contains("gave up after exploring 5 states");
            assertThat(bounded.statesExplored()).isEqualTo(5);

            assertThat(Linearizability.check(history.entries()).linearizable()).isTrue();
        }

        @Test
        void violationOnAnotherKeyWinsOverAnUnknownKey() {
            manyConcurrentWritesThenARead("a");
            run(history, 1, read("b"), "never written");

            Result result = Linearizability.check(history.entries(), 5);
            assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
            assertThat(result.key()).isEqualTo("b");
        }

        @Test
        void nonPositiveBoundIsRejected() {
            assertThatThrownBy(() -> Linearizability.check(List.of(), 0))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        /** Ten overlapping writes, then a read that sees the first one invoked: it must have taken effect last. */
        private void manyConcurrentWritesThenARead(String key) {
            long[] writes = new long[10];
            for (int i = 0; i < writes.length; i++) {
                writes[i] = history.invoke(i, write(key, "v" + i));
            }
            for (long write : writes) {
                history.ok(write, null);
            }
            run(history, 99, read(key), "v0");
        }
    }

    @Nested
    class MalformedHistories {

        @Test
        void keyUsedAsRegisterAndCounterIsRejected() {
            List<Entry> entries = List.of(
                    new Entry(1, Entry.Type.INVOKE, 0, 1, write("k", "a"), null),
                    new Entry(2, Entry.Type.OK, 0, 1, write("k", "a"), null),
                    new Entry(3, Entry.Type.INVOKE, 1, 1, add("k", 1), null));

            assertThatThrownBy(() -> Linearizability.check(entries))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("\"k\" is used both as a register and as a counter");
        }

        @Test
        void completionWithoutInvocationIsRejected() {
            List<Entry> entries = List.of(new Entry(2, Entry.Type.OK, 7, 1, read("k"), "a"));

            assertThatThrownBy(() -> Linearizability.check(entries))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("without invocation");
        }

        @Test
        void secondCompletionIsRejected() {
            List<Entry> entries = List.of(
                    new Entry(1, Entry.Type.INVOKE, 0, 1, read("k"), null),
                    new Entry(2, Entry.Type.OK, 0, 1, read("k"), null),
                    new Entry(3, Entry.Type.INFO, 0, 1, read("k"), null));

            assertThatThrownBy(() -> Linearizability.check(entries))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("completed twice");
        }

        @Test
        void completionBeforeItsInvocationIsRejected() {
            List<Entry> entries = List.of(
                    new Entry(5, Entry.Type.INVOKE, 0, 1, read("k"), null),
                    new Entry(2, Entry.Type.OK, 0, 1, read("k"), null));

            assertThatThrownBy(() -> Linearizability.check(entries))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not after");
        }

        @Test
        void completionOfADifferentOperationIsRejected() {
            List<Entry> entries = List.of(
                    new Entry(1, Entry.Type.INVOKE, 0, 1, read("k"), null),
                    new Entry(2, Entry.Type.OK, 0, 1, read("other"), null));

            assertThatThrownBy(() -> Linearizability.check(entries))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not match");
        }

        @Test
        void entriesMayComeInAnyOrder() {
            List<Entry> entries = List.of(
                    new Entry(4, Entry.Type.OK, 1, 2, read("k"), "a"),
                    new Entry(2, Entry.Type.OK, 0, 1, write("k", "a"), null),
                    new Entry(3, Entry.Type.INVOKE, 1, 2, read("k"), null),
                    new Entry(1, Entry.Type.INVOKE, 0, 1, write("k", "a"), null));

            assertThat(Linearizability.check(entries).linearizable()).isTrue();
        }
    }
}
