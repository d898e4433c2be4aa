package io.basalt.engine;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a region's data consists of at one moment: the active memtable, memtables being flushed,
 * and the SSTables of each family (newest first). Immutable; the region publishes a new view on
 * every flush and compaction. The view owns one reference to each of its SSTables; a reader that
 * captures a view takes its own references ({@link #retain()}).
 */
record View(MemTable active, List<MemTable> flushing, Map<String, List<SSTableReader>> files) {

    View {
        flushing = List.copyOf(flushing);
        Map<String, List<SSTableReader>> copy = new LinkedHashMap<>();
        files.forEach((family, list) -> copy.put(family, List.copyOf(list)));
        files = java.util.Collections.unmodifiableMap(copy);
    }

    /** Every SSTable of the view. */
    List<SSTableReader> allFiles() {
        List<SSTableReader> all = new ArrayList<>();
        files.values().forEach(all::addAll);
        return all;
    }

    /**
     * Takes a reference to every SSTable; false (taking none) when one of them was already closed
     * because a newer view replaced it, in which case the caller reads the newer view.
     */
    boolean retain() {
        List<SSTableReader> taken = new ArrayList<>();
        for (SSTableReader file : allFiles()) {
            if (!file.retain()) {
                taken.forEach(SSTableReader::release);
                return false;
            }
            taken.add(file);
        }
        return true;
    }

    /** Drops the references taken by {@link #retain()}. */
    void release() {
        allFiles().forEach(SSTableReader::release);
    }

    /** The files of this view that {@code next} no longer has. */
    Set<SSTableReader> filesNotIn(View next) {
        Set<SSTableReader> gone = new HashSet<>(allFiles());
        next.allFiles().forEach(gone::remove);
        return gone;
    }
}
