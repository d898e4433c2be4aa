package io.basalt.bench.locks;

import com.google.common.util.concurrent.Striped;
import io.basalt.lock.LockLevel;
import io.basalt.lock.LockManager;
import java.util.Locale;
import java.util.function.IntFunction;
import org.openjdk.jol.info.GraphLayout;

/**
 * Bytes per lock stripe, measured with JOL on this JVM: the whole object graph of a lock table
 * with many stripes minus the graph with one, divided by the difference in stripes (so the fixed
 * cost of a manager, its recorders and the like, is not counted). Quoted in
 * {@code docs/benchmarks.md}.
 *
 * <p>Run: {@code java -Djdk.attach.allowAttachSelf=true -cp
 * 'basalt-bench/target/classes:basalt-bench/target/lib/*' io.basalt.bench.locks.StripeFootprint}.
 */
public final class StripeFootprint {

    static final int STRIPES = 1 << 14;

    private StripeFootprint() {}

    public static void main(String[] args) {
        // JDK 25 refuses Unsafe field offsets of record classes (the walk meets some in the JDK);
        // JOL then finds offsets another way.
        System.setProperty("jol.magicFieldOffset", "true");
        for (String line : report()) {
            System.out.println(line);
        }
    }

    static String[] report() {
        return new String[] {
            line("basalt, plain level (row default)", perStripe(n -> LockManager.builder()
                    .level(LockLevel.ROW, n, false).build())),
            line("basalt, reader-biased level, 8 slots (2-4 cores)", perStripe(n -> LockManager.builder()
                    .level(LockLevel.TABLE, n, true).readerSlots(8).build())),
            line("basalt, reader-biased level, 128 slots (64+ cores)", perStripe(n -> LockManager.builder()
                    .level(LockLevel.TABLE, n, true).readerSlots(128).build())),
            line("guava-striped, Striped.readWriteLock(n)", perStripe(Striped::readWriteLock)),
            line("dynamic-table, per resource in use", perEntry()),
        };
    }

    /** Bytes per stripe of the table {@code build} makes. */
    static double perStripe(IntFunction<Object> build) {
        long one = GraphLayout.parseInstance(build.apply(1)).totalSize();
        long many = GraphLayout.parseInstance(build.apply(STRIPES)).totalSize();
        return (double) (many - one) / (STRIPES - 1);
    }

    /**
     * Bytes per map entry of the dynamic table while resources are read-locked (an entry exists
     * only then): the table with many entries minus the table with one, so that what every entry
     * shares (the locking thread, reached through each lock's first-reader field) cancels out.
     */
    static double perEntry() {
        int n = 4096;
        return (double) (GraphLayout.parseInstance(lockedTable(n)).totalSize()
                - GraphLayout.parseInstance(lockedTable(1)).totalSize()) / (n - 1);
    }

    private static ResourceLocks.DynamicTable lockedTable(int entries) {
        ResourceLocks.DynamicTable table = new ResourceLocks.DynamicTable();
        for (int i = 0; i < entries; i++) {
            table.lock(String.format("table-%08d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII), false);
        }
        return table;
    }

    private static String line(String what, double bytes) {
        return String.format(Locale.ROOT, "%-52s %8.1f bytes", what, bytes);
    }
}
