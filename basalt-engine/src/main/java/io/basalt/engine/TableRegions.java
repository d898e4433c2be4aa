package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Get;
import io.basalt.client.Mutation;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * A table's regions in key order, and the routing of each operation to the region of its row.
 * The regions cover the whole key space without gaps or overlaps: the first starts at the empty
 * row, each ends where the next starts, the last ends at the empty row (the table's end).
 *
 * <p>The region array is replaced whole (a split or merge publishes a new one) and read without a
 * lock. An operation that reaches a region after it was replaced fails with {@link
 * RegionMovedException} before it changes anything, and is routed again here; the replacement is
 * published before the old region is retired, so routing again finds its successor.
 */
final class TableRegions {

    private final int id;
    /** Replaced by an alter, together with every region (see {@link #alter}). */
    private volatile TableDescriptor descriptor;
    /** Reads and writes are refused (HBase's disable), kept in the manifest. */
    private volatile boolean disabled;
    private final Store store;
    private volatile Region[] regions;

    TableRegions(int id, TableDescriptor descriptor, Store store, List<Region> regions) {
        this.id = id;
        this.descriptor = descriptor;
        this.store = store;
        this.regions = check(regions);
    }

    private Region[] check(List<Region> list) {
        Region[] sorted = list.toArray(Region[]::new);
        Arrays.sort(sorted, (a, b) -> Bytes.compare(a.start(), b.start()));
        // A replica store may hold part of the table (a split's daughter narrowed to its range),
        // still one contiguous range; a store of its own covers the whole table.
        boolean whole = store == null || !store.isReplica();
        if (sorted.length == 0
                || (whole && (sorted[0].start().length != 0 || sorted[sorted.length - 1].end().length != 0))) {
            throw new IllegalStateException("the regions of table " + descriptor.name() + " do not cover the table: "
                    + list);
        }
        for (int i = 1; i < sorted.length; i++) {
            if (!Arrays.equals(sorted[i - 1].end(), sorted[i].start())) {
                throw new IllegalStateException("the regions of table " + descriptor.name() + " leave a gap or"
                        + " overlap between " + sorted[i - 1].label() + " and " + sorted[i].label());
            }
        }
        return sorted;
    }

    int id() {
        return id;
    }

    String name() {
        return descriptor.name();
    }

    TableDescriptor descriptor() {
        return descriptor;
    }

    boolean disabled() {
        return disabled;
    }

    void setDisabled(boolean disabled) {
        this.disabled = disabled;
    }

    /** The regions in key order (a snapshot). */
    List<Region> regions() {
        return List.of(regions);
    }

    /** The regions in key order, without a copy, for loops on the write path: never modify it. */
    Region[] regionArray() {
        return regions;
    }

    /**
     * Takes {@code altered} as the table's descriptor and {@code replacement} (regions over the
     * same ranges, built with it) as its regions. Readers that still hold an old region find it
     * retired and look again, finding the new ones.
     */
    synchronized void alter(TableDescriptor altered, List<Region> replacement) {
        Region[] next = check(replacement);
        descriptor = altered;
        regions = next;
    }

    /** Replaces {@code old} (adjacent regions) by {@code replacement}, covering the same range. */
    synchronized void replace(List<Region> old, List<Region> replacement) {
        List<Region> next = new ArrayList<>(Arrays.asList(regions));
        if (!next.removeAll(old) || next.size() + old.size() != regions.length) {
            throw new IllegalStateException("regions " + old + " are not all regions of table " + name());
        }
        next.addAll(replacement);
        regions = check(next);
    }

    /**
     * The region named {@code name}: its {@link io.basalt.client.RegionInfo#name()} or its id.
     *
     * @throws IllegalArgumentException when the table has no such region (now)
     */
    Region region(String name) {
        String idPart = name.substring(name.lastIndexOf(',') + 1).trim();
        long wanted;
        try {
            wanted = Long.parseLong(idPart);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + name + "' is not a region name (table,start,id) or id");
        }
        for (Region r : regions) {
            if (r.id() == wanted) {
                return r;
            }
        }
        throw new IllegalArgumentException("table " + name() + " has no region " + name
                + " (a split or merge may have replaced it; list the regions again)");
    }

    /** The region holding {@code row}. */
    Region regionFor(byte[] row) {
        Region[] all = regions;
        int low = 0;
        int high = all.length - 1;
        while (low < high) { // the last region whose start is <= row
            int mid = (low + high + 1) >>> 1;
            if (Bytes.compare(all[mid].start(), row) <= 0) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return all[low];
    }

    // ------------------------------------------------------------------ routing

    CompletableFuture<Object> mutate(Mutation mutation) {
        return routed(() -> regionFor(mutation.row()).mutate(mutation));
    }

    CompletableFuture<Boolean> checkAndMutate(CheckAndMutate check) {
        return routed(() -> regionFor(check.row()).checkAndMutate(check));
    }

    Result get(Get get) {
        while (true) {
            try {
                return regionFor(get.row()).get(get);
            } catch (RegionMovedException e) {
                Thread.onSpinWait();
            }
        }
    }

    /** Runs {@code attempt} until it does not fail with {@link RegionMovedException}. */
    private static <T> CompletableFuture<T> routed(Supplier<CompletableFuture<T>> attempt) {
        while (true) {
            CompletableFuture<T> future;
            try {
                future = attempt.get();
            } catch (RegionMovedException e) {
                Thread.onSpinWait();
                continue;
            }
            if (!moved(future)) {
                return future;
            }
            Thread.onSpinWait();
        }
    }

    private static boolean moved(CompletableFuture<?> future) {
        if (!future.isCompletedExceptionally()) {
            return false;
        }
        try {
            future.join();
            return false;
        } catch (CompletionException e) {
            return e.getCause() instanceof RegionMovedException;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Applies each mutation in its row's region; the mutations of one region go as one group
     * (shared log records and force), each keeping its own future.
     */
    List<CompletableFuture<Object>> mutateAll(List<? extends Mutation> mutations) {
        Region[] all = regions;
        List<CompletableFuture<Object>> first = null;
        if (all.length == 1) { // the common case: one group, no routing
            first = all[0].mutateAll(mutations);
            if (first.stream().noneMatch(TableRegions::moved)) {
                return first;
            }
        }
        List<CompletableFuture<Object>> results = new ArrayList<>(java.util.Collections.nCopies(mutations.size(), null));
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < mutations.size(); i++) {
            if (first != null && !moved(first.get(i))) {
                results.set(i, first.get(i));
            } else {
                pending.add(i);
            }
        }
        while (!pending.isEmpty()) {
            Map<Region, List<Integer>> groups = new LinkedHashMap<>();
            for (int i : pending) {
                groups.computeIfAbsent(regionFor(mutations.get(i).row()), r -> new ArrayList<>()).add(i);
            }
            List<Integer> again = new ArrayList<>();
            for (var group : groups.entrySet()) {
                List<Mutation> batch = new ArrayList<>(group.getValue().size());
                group.getValue().forEach(i -> batch.add(mutations.get(i)));
                List<CompletableFuture<Object>> futures = group.getKey().mutateAll(batch);
                for (int k = 0; k < futures.size(); k++) {
                    int index = group.getValue().get(k);
                    if (moved(futures.get(k))) {
                        again.add(index);
                    } else {
                        results.set(index, futures.get(k));
                    }
                }
            }
            if (!again.isEmpty()) {
                Thread.onSpinWait();
            }
            pending = again;
        }
        return results;
    }

    /** A scanner over the table at the current read point, walking its regions in the scan's order. */
    TableScanner scanner(Scan scan) {
        store.checkOpen();
        if (scan.raw() && scan.filter() != null) {
            throw new IllegalArgumentException("a raw scan takes no filter: it shows what is stored, markers included");
        }
        for (byte[] family : scan.columns().keySet()) {
            String name = new String(family, java.nio.charset.StandardCharsets.UTF_8);
            if (descriptor.family(name).isEmpty()) {
                throw new io.basalt.client.NoSuchFamilyException(descriptor.name(), name);
            }
        }
        return new TableScanner(this, scan, store.readPoints().registerCurrent(), store.clock().getAsLong());
    }

    @Override
    public String toString() {
        return "TableRegions{" + name() + " id=" + id + ", " + regions.length + " regions}";
    }
}
