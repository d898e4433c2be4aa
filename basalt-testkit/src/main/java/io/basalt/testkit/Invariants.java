package io.basalt.testkit;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

/** The invariants found on the class path, and the logic both test engines share to run them. */
final class Invariants {

    private static final List<TestInvariant> ALL = load();

    private Invariants() {}

    private static List<TestInvariant> load() {
        List<TestInvariant> found = new ArrayList<>();
        ServiceLoader.load(TestInvariant.class).forEach(found::add);
        return List.copyOf(found);
    }

    /** The names of the invariants a test turned off with {@link IgnoreInvariants}. */
    static Set<String> ignored(Class<?> testClass, AnnotatedElement testMethod) {
        Set<String> ignored = ignoredNames(testClass);
        ignored.addAll(ignoredNames(testMethod));
        return ignored;
    }

    private static Set<String> ignoredNames(AnnotatedElement element) {
        if (element == null) {
            return new HashSet<>();
        }
        IgnoreInvariants ignore = element.getAnnotation(IgnoreInvariants.class);
        if (ignore == null && element instanceof Class<?> c && c.getEnclosingClass() != null) {
            return ignoredNames(c.getEnclosingClass());
        }
        return ignore == null
                ? new HashSet<>()
                : Arrays.stream(ignore.value()).collect(Collectors.toCollection(HashSet::new));
    }

    static void before(String testName) {
        for (TestInvariant invariant : ALL) {
            invariant.beforeEach(testName);
        }
    }

    /**
     * Returns one message listing every broken invariant, or {@code null} when all hold. Ignored
     * invariants are consulted too and their findings dropped, so what an exempt test left behind
     * is not blamed on the next test.
     */
    static String violations(Set<String> ignored, String testName) {
        StringBuilder report = null;
        for (TestInvariant invariant : ALL) {
            String violation = invariant.violation(testName);
            if (violation != null && !ignored.contains(invariant.name())) {
                if (report == null) {
                    report = new StringBuilder("Test invariants broken by ").append(testName).append(':');
                }
                report.append(System.lineSeparator()).append("  [").append(invariant.name()).append("] ")
                        .append(violation);
            }
        }
        return report == null ? null : report.toString();
    }
}
