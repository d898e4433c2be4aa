package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.client.Result;
import io.basalt.client.Scan;

/**
 * Scans a table by walking its regions in the scan's order, one {@link RegionScanner} at a time,
 * all at the one read point registered when the scan opened: the caller sees one snapshot of the
 * table, whatever splits or merges happen meanwhile (a region scanner keeps the files of the
 * region it opened on; the next region is looked up by key when it is reached).
 *
 * <p>Not thread-safe, like the region scanner.
 */
final class TableScanner implements AutoCloseable {

    private final TableRegions table;
    private final Scan scan;
    private final ReadPoints.Registration registration;
    /** Where the next region's part of the scan begins, in the scan's direction; empty: the table's edge. */
    private byte[] cursor;
    private boolean cursorInclusive;
    private RegionScanner current;
    private long rows;
    private boolean finished;
    private boolean closed;

    TableScanner(TableRegions table, Scan scan, ReadPoints.Registration registration) {
        this.table = table;
        this.scan = scan;
        this.registration = registration;
        this.cursor = scan.startRow();
        this.cursorInclusive = scan.startInclusive();
    }

    /** The next row, or {@code null} at the end (and every time after). */
    Result next() {
        while (!closed && !finished) {
            if (scan.limit() > 0 && rows >= scan.limit()) {
                finished = true;
                break;
            }
            if (current == null && !openNext()) {
                finished = true;
                break;
            }
            Result r = current.next();
            if (r != null) {
                if (!r.isPartial()) {
                    rows++;
                }
                return r;
            }
            current.close();
            current = null;
        }
        return null;
    }

    /**
     * Opens the scanner of the region the cursor is in, clipped to it, and moves the cursor to the
     * region's far edge; false when the scan has no more regions to read.
     */
    private boolean openNext() {
        while (cursor != null) {
            Region region;
            if (!scan.reversed()) {
                region = table.regionFor(cursor);
            } else if (cursor.length == 0) {
                region = table.regionFor(lastRegionKey());
            } else {
                region = cursorInclusive ? table.regionFor(cursor) : table.regionBefore(cursor);
                if (region == null) {
                    return false;
                }
            }
            Scan part = scan.reversed() ? reversedPart(region) : forwardPart(region);
            if (part == null) {
                return false;
            }
            try {
                part.setLimit(scan.limit() > 0 ? scan.limit() - rows : 0);
                current = region.scanner(part, registration.point());
            } catch (RegionMovedException e) {
                Thread.onSpinWait();
                continue; // replaced since it was looked up: look again
            }
            advancePast(region);
            return true;
        }
        return false;
    }

    /** Any row of the last region: its start (the empty row, when it is the only one, is the first). */
    private byte[] lastRegionKey() {
        var regions = table.regions();
        return regions.getLast().start();
    }

    /** The scan within {@code region}, from the cursor forward; null when the stop row lies before the region. */
    private Scan forwardPart(Region region) {
        Scan part = scan.copy();
        if (Bytes.compare(cursor, region.start()) >= 0) {
            part.withStartRow(cursor, cursorInclusive);
        } else {
            part.withStartRow(region.start(), true);
        }
        byte[] stop = scan.stopRow();
        if (region.end().length > 0 && (stop.length == 0 || Bytes.compare(stop, region.end()) >= 0)) {
            part.withStopRow(region.end(), false);
        }
        return part;
    }

    /** The scan within {@code region}, from the cursor backward. */
    private Scan reversedPart(Region region) {
        Scan part = scan.copy();
        if (cursor.length > 0) {
            part.withStartRow(cursor, cursorInclusive);
        }
        byte[] stop = scan.stopRow();
        if (region.start().length > 0 && (stop.length == 0 || Bytes.compare(stop, region.start()) < 0)) {
            part.withStopRow(region.start(), true);
        }
        return part;
    }

    /** Moves the cursor to where the region after {@code region} (in the scan's order) begins, or ends the walk. */
    private void advancePast(Region region) {
        byte[] stop = scan.stopRow();
        if (!scan.reversed()) {
            byte[] end = region.end();
            int c = stop.length == 0 ? 1 : Bytes.compare(stop, end);
            if (end.length == 0 || c < 0 || (c == 0 && !scan.stopInclusive())) {
                cursor = null; // the table's end, or the stop row, is in this region
            } else {
                cursor = end;
                cursorInclusive = true;
            }
        } else {
            byte[] start = region.start();
            if (start.length == 0 || (stop.length > 0 && Bytes.compare(stop, start) >= 0)) {
                cursor = null;
            } else {
                cursor = start;
                cursorInclusive = false;
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (current != null) {
                current.close();
                current = null;
            }
            registration.close();
        }
    }
}
