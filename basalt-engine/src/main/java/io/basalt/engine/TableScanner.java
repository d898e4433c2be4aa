package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import java.util.ArrayList;
import java.util.List;

/**
 * Scans a table by walking the regions the scan covers in the scan's order, one
 * {@link RegionScanner} at a time.
 *
 * <p><b>One snapshot.</b> When the scan opens it registers one read point, takes the store's
 * clock once, and captures the view of every region it will read (a reference on each of their
 * files): a region scanner is only built when the walk reaches its region, but from the view
 * captured at the open. So the caller sees the table as it was when the scan opened, however
 * long the walk takes and whatever flushes, compactions, splits or merges happen meanwhile.
 * Capturing the views is what makes that hold for time to live too: a compaction that runs
 * after the open may drop cells that expired since (it judges expiry at its own clock), and a
 * view captured later would miss cells the scan's clock still sees as alive.
 *
 * <p>Not thread-safe, like the region scanner.
 */
final class TableScanner implements AutoCloseable {

    /** A region the scan will read, and its view as captured at the open (with references). */
    private record Part(Region region, View view) {}

    private final Scan scan;
    private final ReadPoints.Registration registration;
    private final long now;
    private final List<Part> parts;
    /** The scan's filter, one for all its regions (a page spans them), or {@code null}. */
    private final ScanFilter filter;
    private int next;
    private RegionScanner current;
    private Region currentRegion;
    private long rows;
    /** Rows returned from {@link #currentRegion}, added to its read count when the scan leaves it. */
    private long regionRows;
    private boolean closed;

    TableScanner(TableRegions table, Scan scan, ReadPoints.Registration registration, long now) {
        this.scan = scan;
        this.registration = registration;
        this.now = now;
        List<Part> captured;
        try {
            captured = capture(table, scan);
        } catch (RuntimeException e) {
            registration.close();
            throw e;
        }
        this.parts = captured;
        this.filter = scan.filter() == null ? null : ScanFilter.compile(scan.filter(), scan.reversed());
    }

    /**
     * The views of the regions the scan covers, in the scan's order. The region array may be
     * replaced while they are captured: a region found retired makes the capture start over
     * from the new array (its successors cover the same rows).
     */
    private static List<Part> capture(TableRegions table, Scan scan) {
        while (true) {
            List<Part> parts = new ArrayList<>();
            boolean stale = false;
            try {
                for (Region region : table.regions()) {
                    if (!covers(scan, region)) {
                        continue;
                    }
                    View view = region.captureView();
                    if (view == null) {
                        stale = true;
                        break;
                    }
                    parts.add(new Part(region, view));
                }
            } catch (RuntimeException e) { // the table was dropped or the store closed meanwhile
                parts.forEach(p -> p.view().release());
                throw e;
            }
            if (!stale) {
                return scan.reversed() ? parts.reversed() : parts;
            }
            parts.forEach(p -> p.view().release());
            Thread.onSpinWait();
        }
    }

    /** Whether the scan's row range meets the region's. */
    private static boolean covers(Scan scan, Region region) {
        byte[] low = scan.reversed() ? scan.stopRow() : scan.startRow();
        byte[] high = scan.reversed() ? scan.startRow() : scan.stopRow();
        boolean belowEnd = region.end().length == 0 || low.length == 0 || Bytes.compare(low, region.end()) < 0;
        boolean aboveStart = high.length == 0 || Bytes.compare(high, region.start()) >= 0;
        return belowEnd && aboveStart;
    }

    /** The next row, or {@code null} at the end (and every time after). */
    Result next() {
        while (!closed) {
            if (scan.limit() > 0 && rows >= scan.limit()) {
                return null;
            }
            if (current == null) {
                if (next >= parts.size() || (filter != null && filter.stopped())) {
                    return null;
                }
                Part part = parts.get(next++);
                Scan clipped = clip(part.region());
                clipped.setLimit(scan.limit() > 0 ? scan.limit() - rows : 0);
                current = part.region().scanner(clipped, part.view(), registration.point(), now, filter);
                currentRegion = part.region();
            }
            Result r = current.next();
            if (r != null) {
                if (!r.isPartial()) {
                    rows++;
                    regionRows++;
                }
                return r;
            }
            closeCurrent();
        }
        return null;
    }

    private void closeCurrent() {
        currentRegion.readRequests.add(regionRows);
        regionRows = 0;
        current.close();
        current = null;
        currentRegion = null;
    }

    /** The scan within {@code region}: its bounds narrowed to the region's where the region's are tighter. */
    private Scan clip(Region region) {
        Scan part = scan.copy();
        byte[] start = region.start();
        byte[] end = region.end();
        if (!scan.reversed()) {
            if (start.length > 0 && Bytes.compare(scan.startRow(), start) < 0) {
                part.withStartRow(start, true);
            }
            if (end.length > 0 && (scan.stopRow().length == 0 || Bytes.compare(scan.stopRow(), end) >= 0)) {
                part.withStopRow(end, false);
            }
        } else {
            if (end.length > 0 && (scan.startRow().length == 0 || Bytes.compare(scan.startRow(), end) >= 0)) {
                part.withStartRow(end, false);
            }
            if (start.length > 0 && (scan.stopRow().length == 0 || Bytes.compare(scan.stopRow(), start) < 0)) {
                part.withStopRow(start, true);
            }
        }
        return part;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (current != null) {
                closeCurrent(); // releases its part's view
            }
            for (int i = next; i < parts.size(); i++) {
                parts.get(i).view().release();
            }
            registration.close();
        }
    }
}
