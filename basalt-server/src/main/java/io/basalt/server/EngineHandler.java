package io.basalt.server;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.client.Append;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TooManyScannersException;
import io.basalt.client.net.Messages;
import io.basalt.client.security.AccessControl;
import io.basalt.client.security.Permission;
import io.basalt.client.security.Scram;
import io.basalt.client.spi.IdentifiedCalls;
import io.basalt.client.spi.MemoryOnlyReads;
import io.basalt.protocol.CallId;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves requests from the embedded store. Bodies are decoded on the event loop; the store is
 * called on a virtual thread per request, since a read may wait for the disk and a write for a
 * row lock or a write stall, and neither may hold up the event loop. Responses are written from
 * whichever thread completes the store's future (for a durable write, the log's completer).
 *
 * <h2>Scanners</h2>
 * {@code SCAN_OPEN} opens a scanner on the store (one snapshot) and answers with its id and a
 * first batch (number 0); {@code SCAN_NEXT} asks for batch number 1, 2, ... — a client reading
 * ahead has several in flight, and the numbers keep each batch with its request — and
 * {@code SCAN_CLOSE} closes it. A batch
 * holds whole results until it has {@code caching} rows (when set) or {@code maxResultSize} bytes,
 * at least one result, or until {@link ServerConfig#scanTimeLimit()} has passed: a scan that skips
 * many rows (a narrow time range or column selection) then answers with what it has, possibly
 * nothing — a heartbeat that keeps the client's request from timing out — and goes on looking in
 * the background for the next batch. A scanner that reaches its end closes by itself. Each scanner has a lease:
 * one idle longer than {@link ServerConfig#scannerLease()} is closed, and a later request for it
 * gets {@link Status#UNKNOWN_SCANNER}. A connection's scanners close with the connection. A
 * connection holds at most {@link ServerConfig#maxScannersPerConnection()} open at once, counted
 * until each one's store scanner is closed; a {@code SCAN_OPEN} beyond that is refused with
 * {@link Status#TOO_MANY_SCANNERS} before the store is asked for anything, so a client that never
 * closes its scanners fills its own allowance, not the server's heap. {@code SCAN_NEXT} and
 * {@code SCAN_CLOSE} reach only the connection's own scanners: another connection's id is unknown.
 *
 * <h2>Abandoned scans (issue #17)</h2>
 * A scanner whose lease expired or whose connection closed is cancelled at once: a batch being
 * made stops at the next row (its request, if anyone still waits, gets {@code UNKNOWN_SCANNER}),
 * no further row is asked of the store, and the store's scanner is closed, releasing its snapshot
 * and files. One call the store is in the middle of cannot be stopped from here (the store's
 * scanner is not thread-safe, and closing it under a running {@code next()} would free what that
 * call reads): the store's scanner closes as soon as that call returns. Stopping the server does
 * not wait for such calls: {@link #close()} cancels every scanner, gives running tasks
 * {@link #ABANDON_WAIT_NANOS} (they had the server's shutdown grace already), then closes the
 * store under whatever still runs, which fails with the store's "closed" error.
 */
public final class EngineHandler implements RequestHandler {

    private static final Logger LOG = LoggerFactory.getLogger(EngineHandler.class);

    private final Connection store;
    /** Users and grants every request is checked against; null when the server does not authenticate. */
    private final AccessControl access;
    /** Reads and writes users and grants when {@link #access} is null (auth=none); made on first use. */
    private AccessControl unchecked;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    /** Whether gets are tried on the event loop first: configured so, and the store keeps the contract. */
    private final boolean inlineGets;
    /**
     * Most blocks one get tried on the event loop may read from the cache: a YCSB row spans one or
     * two per source, and the bound keeps a wide row's read off the event loop.
     */
    static final int INLINE_BLOCKS = 16;
    private final ScheduledExecutorService reaper;
    private final Map<Long, ServerScanner> scanners = new ConcurrentHashMap<>();
    private final AtomicLong scannerIds = new AtomicLong();
    private final long leaseNanos;
    private final int maxScanners;
    /** How long a scan request waits for an earlier batch that was never asked for to be asked for. */
    private static final long ASK_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How far beyond the batches asked for in order a request may ask (a client reads ahead at most 4). */
    private static final int MAX_ASKED_EARLY = 16;
    private final long timeLimitNanos;
    private final AtomicLong heartbeats = new AtomicLong();
    /** How long {@link #close()} waits for running tasks before it closes the store under them. */
    private static final long ABANDON_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Stands for "no row yet, time is up" between {@code nextRow} and {@code next}. */
    private static final Result OUT_OF_TIME = Result.of(List.of(io.basalt.cell.Cell.put(new byte[] {0},
            new byte[] {'f'}, new byte[0], 0, new byte[0])));

    /** What {@link #storeMetrics()} reads when the store is not embedded (a cluster node's replicas), or null. */
    private final Supplier<io.basalt.engine.StoreMetrics> metrics;

    private EngineHandler(Connection store, ServerConfig config, Supplier<io.basalt.engine.StoreMetrics> metrics) {
        this.store = store;
        // A cluster node starts before its cluster can answer: it reads the users in the background.
        this.access = !config.auth().enabled() ? null : store instanceof IdentifiedCalls
                ? AccessControl.eventually(store, config.auth().superusers(), config.auth().refresh())
                : AccessControl.over(store, config.auth().superusers(), config.auth().refresh());
        this.metrics = metrics;
        this.inlineGets = config.inlineGets() && store instanceof MemoryOnlyReads.Capable;
        this.leaseNanos = config.scannerLease().toNanos();
        this.maxScanners = config.maxScannersPerConnection();
        this.timeLimitNanos = config.scanTimeLimit().toNanos();
        this.reaper = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().name("basalt-scanner-leases").daemon().unstarted(r));
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), leaseNanos / 4);
        reaper.scheduleAtFixedRate(this::expireScanners, period, period, TimeUnit.NANOSECONDS);
    }

    /** Opens the store in the configured directory and serves it. */
    public static EngineHandler open(ServerConfig config) {
        return new EngineHandler(Basalt.open(config.dataDir(), config.store()), config, null);
    }

    /** Serves an already open store (closed with this handler). */
    public static EngineHandler over(Connection store, ServerConfig config) {
        return new EngineHandler(store, config, null);
    }

    /**
     * Serves {@code store}, whose metrics (for {@code /metrics}, the page and {@code status}) are
     * read from {@code metrics}: a cluster node's, gathered from the region replicas it holds.
     */
    public static EngineHandler over(Connection store, ServerConfig config,
                                     Supplier<io.basalt.engine.StoreMetrics> metrics) {
        return new EngineHandler(store, config, java.util.Objects.requireNonNull(metrics, "metrics"));
    }

    /** Over a cluster's connection, which applies each identified call once. */
    @Override
    public boolean appliesCallsOnce() {
        return store instanceof IdentifiedCalls;
    }

    @Override
    public io.basalt.engine.StoreMetrics storeMetrics() {
        if (metrics != null) {
            return metrics.get();
        }
        return io.basalt.engine.StoreMetrics.available(store) ? io.basalt.engine.StoreMetrics.of(store) : null;
    }

    /** A cluster node's view of its cluster, asked of the metadata group (5 s at most); null off a cluster. */
    @Override
    public io.basalt.client.ClusterInfo clusterInfo() {
        if (!(store instanceof IdentifiedCalls)) {
            return null;
        }
        try {
            return store.admin().clusterStatus().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the cluster did not answer: " + ServerConnection.unwrap(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the cluster", e);
        }
    }

    /** Scanners open now. */
    @Override
    public int openScanners() {
        return scanners.size();
    }

    /** Scan batches sent empty because no row was found within the time limit. */
    public long heartbeats() {
        return heartbeats.get();
    }

    @Override
    public void handle(ServerConnection c, long id, OpCode op, ByteBuf body) {
        dispatch(c, id, op, null, body);
    }

    /** A write with a call id goes to a table that applies it once, when the store offers one. */
    @Override
    public void handle(ServerConnection c, long id, OpCode op, CallId call, ByteBuf body) {
        dispatch(c, id, op, store instanceof IdentifiedCalls ? call : null, body);
    }

    private void dispatch(ServerConnection c, long id, OpCode op, CallId call, ByteBuf body) {
        switch (op) {
            case PING -> {
                Wire.end(body, "PING");
                c.respond(id, op, _ -> { });
            }
            case CREATE_TABLE -> {
                TableDescriptor t = Messages.readTable(body);
                List<byte[]> splitKeys = decode(body, op, Messages::readSplitKeys);
                run(c, id, op, audited(c, op, t.name(), () -> admin(c).createTable(t, splitKeys)), null);
            }
            case LIST_TABLES -> {
                Wire.end(body, "LIST_TABLES");
                run(c, id, op, () -> admin(c).listTables(), Messages::writeTables);
            }
            case DESCRIBE_TABLE -> {
                String name = name(body, op);
                run(c, id, op, () -> admin(c).describeTable(name), Messages::writeTable);
            }
            case DROP_TABLE -> {
                String name = name(body, op);
                run(c, id, op, audited(c, op, name, () -> {
                    CompletableFuture<Void> dropped = admin(c).dropTable(name);
                    // an embedded store forgets the table's grants itself; a cluster's are forgotten here
                    return store instanceof IdentifiedCalls && !AccessControl.TABLE.equals(name)
                            ? dropped.thenRunAsync(() -> acl().forgetTable(name), executor) : dropped;
                }), null);
            }
            case FLUSH -> {
                String name = name(body, op);
                run(c, id, op, audited(c, op, name, () -> admin(c).flush(name)), null);
            }
            case COMPACT -> {
                String name = name(body, op);
                run(c, id, op, audited(c, op, name, () -> admin(c).compact(name)), null);
            }
            case CLUSTER_STATUS -> {
                Wire.end(body, "CLUSTER_STATUS");
                run(c, id, op, () -> admin(c).clusterStatus(), Messages::writeClusterInfo);
            }
            case SERVER_STATUS -> {
                Wire.end(body, "SERVER_STATUS");
                BasaltServer server = c.server();
                String address = server.address().getHostString() + ":" + server.address().getPort();
                run(c, id, op, () -> {
                    if (access != null) {
                        access.checkGlobal(c.user(), io.basalt.client.security.Action.ADMIN, "see the server's status");
                    }
                    io.basalt.engine.StoreMetrics m = storeMetrics();
                    if (m == null) {
                        throw new IllegalArgumentException("this server has no store of its own to describe");
                    }
                    return CompletableFuture.completedFuture(m.status(address, server.uptimeMillis())
                            .withServer(server.connections(), server.metrics().requestsAnswered()));
                }, Messages::writeServerStatus);
            }
            case LIST_REGIONS -> {
                String name = name(body, op);
                run(c, id, op, () -> admin(c).listRegions(name), Messages::writeRegions);
            }
            case LOCATE_REGION -> {
                String name = Wire.readString(body, "table name");
                byte[] row = decode(body, op, b -> Wire.readBytes(b, "row"));
                run(c, id, op, () -> admin(c).locateRegion(name, row), Messages::writeRegion);
            }
            case SPLIT -> {
                String name = Wire.readString(body, "table name");
                byte[] row = decode(body, op, b -> Wire.readBoolean(b, "has row") ? Wire.readBytes(b, "row") : null);
                run(c, id, op, audited(c, op, name + (row == null ? "" : " at " + io.basalt.bytes.Bytes.toStringBinary(row)),
                        () -> admin(c).split(name, row)), null);
            }
            case SET_TABLE_DISABLED -> {
                String name = Wire.readString(body, "table name");
                boolean disabled = decode(body, op, b -> Wire.readBoolean(b, "disabled"));
                run(c, id, op, audited(c, op, name + (disabled ? " disable" : " enable"),
                        () -> disabled ? admin(c).disableTable(name) : admin(c).enableTable(name)), null);
            }
            case IS_TABLE_DISABLED -> {
                String name = decode(body, op, b -> Wire.readString(b, "table name"));
                run(c, id, op, () -> admin(c).isTableDisabled(name), Wire::writeBoolean);
            }
            case MODIFY_TABLE -> {
                TableDescriptor altered = decode(body, op, Messages::readTable);
                run(c, id, op, audited(c, op, altered.name(), () -> admin(c).modifyTable(altered)), null);
            }
            case TRUNCATE_TABLE -> {
                String name = Wire.readString(body, "table name");
                boolean preserve = decode(body, op, b -> Wire.readBoolean(b, "preserve splits"));
                run(c, id, op, audited(c, op, name, () -> admin(c).truncateTable(name, preserve)), null);
            }
            case MERGE_REGIONS -> {
                String name = Wire.readString(body, "table name");
                String first = Wire.readString(body, "first region");
                String second = decode(body, op, b -> Wire.readString(b, "second region"));
                run(c, id, op, audited(c, op, name + " " + first + " + " + second,
                        () -> admin(c).mergeRegions(name, first, second)), null);
            }
            case USER_ADD, USER_PASSWORD -> {
                String user = Wire.readString(body, "user");
                Scram.Credential credential = decode(body, op, b -> Scram.Credential.decode(Wire.readString(b, "credential")));
                boolean add = op == OpCode.USER_ADD;
                run(c, id, op, audited(c, op, user, () -> users(() -> {
                    if (access != null) {
                        access.checkUsers(c.user(), user, !add, (add ? "add user '" : "change the password of user '")
                                + user + "'");
                    }
                    if (add) {
                        acl().addUser(user, credential);
                    } else {
                        acl().changePassword(user, credential);
                    }
                    return null;
                })), null);
            }
            case USER_REMOVE -> {
                String user = decode(body, op, b -> Wire.readString(b, "user"));
                run(c, id, op, audited(c, op, user, () -> users(() -> {
                    if (access != null) {
                        access.checkUsers(c.user(), user, false, "remove user '" + user + "'");
                    }
                    acl().removeUser(user);
                    return null;
                })), null);
            }
            case USER_LIST -> {
                Wire.end(body, "USER_LIST");
                run(c, id, op, () -> users(() -> {
                    if (access != null) {
                        access.checkUsers(c.user(), null, false, "list the users");
                    }
                    return acl().users();
                }), Messages::writeStrings);
            }
            case GRANT, REVOKE -> {
                Permission p = decode(body, op, Messages::readPermission);
                boolean grant = op == OpCode.GRANT;
                run(c, id, op, audited(c, op, p.toString(), () -> users(() -> {
                    if (access != null) {
                        access.checkGrant(c.user(), p, grant ? "grant" : "revoke");
                    }
                    if (grant) {
                        acl().grant(p);
                    } else {
                        acl().revoke(p);
                    }
                    return null;
                })), null);
            }
            case USER_PERMISSIONS -> {
                String user = Wire.readString(body, "user");
                String table = decode(body, op, b -> Wire.readString(b, "table"));
                String of = user.isEmpty() ? null : user;
                String on = table.isEmpty() ? null : table;
                run(c, id, op, () -> users(() -> {
                    if (access != null) {
                        access.checkPermissions(c.user(), of, on);
                    }
                    return acl().permissions(of, on);
                }), Messages::writePermissions);
            }
            case AUTHENTICATE -> throw new IllegalStateException("AUTHENTICATE is the connection's");
            case PUT, DELETE -> {
                AsyncTable table = table(c, body, call);
                Mutation m = decode(body, op, Messages::readMutation);
                if (op == OpCode.PUT && !(m instanceof Put) || op == OpCode.DELETE && !(m instanceof Delete)) {
                    throw new MalformedFrameException(op + " carries a " + m.getClass().getSimpleName());
                }
                run(c, id, op, () -> m instanceof Put p ? table.put(p) : table.delete((Delete) m), null);
            }
            case INCREMENT -> {
                AsyncTable table = table(c, body, call);
                Mutation m = decode(body, op, Messages::readMutation);
                if (!(m instanceof Increment inc)) {
                    throw new MalformedFrameException("INCREMENT carries a " + m.getClass().getSimpleName());
                }
                run(c, id, op, () -> table.increment(inc), Messages::writeResult);
            }
            case APPEND -> {
                AsyncTable table = table(c, body, call);
                Mutation m = decode(body, op, Messages::readMutation);
                if (!(m instanceof Append append)) {
                    throw new MalformedFrameException("APPEND carries a " + m.getClass().getSimpleName());
                }
                run(c, id, op, () -> table.append(append), Messages::writeResult);
            }
            case GET -> {
                AsyncTable table = table(c, body);
                Get get = decode(body, op, b -> {
                    Get g = Messages.readGet(b);
                    Messages.readConsistency(b, g);
                    return g;
                });
                if (inlineGets && get.filter() == null) {
                    if (!c.mayAnswerInline()) { // its answers are queued past the mark: a worker, under the in-flight limit
                        c.server().metrics().eventLoopGet(false);
                    } else if (answeredInMemory(c, id, table, get)) {
                        return;
                    }
                }
                run(c, id, op, () -> table.get(get), Messages::writeResult);
            }
            case CHECK_AND_MUTATE -> {
                AsyncTable table = table(c, body, call);
                CheckAndMutate check = decode(body, op, Messages::readCheckAndMutate);
                run(c, id, op, () -> table.checkAndMutate(check), Wire::writeBoolean);
            }
            case BATCH -> {
                AsyncTable table = table(c, body, call);
                List<Mutation> mutations = decode(body, op, Messages::readMutations);
                executor.execute(() -> batch(c, id, table, mutations));
            }
            case SCAN_OPEN -> {
                AsyncTable table = table(c, body);
                Scan scan = decode(body, op, b -> {
                    Scan sc = Messages.readScan(b);
                    Messages.readConsistency(b, sc);
                    return sc;
                });
                executor.execute(() -> openScanner(c, id, table, scan));
            }
            case SCAN_NEXT -> {
                long[] next = decode(body, op, b -> new long[] {Wire.readVarlong(b, "scanner id"),
                        Wire.readVarlong(b, "batch number")});
                ServerScanner s = scanners.get(next[0]);
                if (s != null && s.owner == c) {
                    try {
                        s.asked(next[1]);
                    } catch (IllegalArgumentException e) {
                        c.fail(id, op, e);
                        return;
                    }
                }
                executor.execute(() -> nextBatch(c, id, next[0], next[1]));
            }
            case SCAN_CLOSE -> {
                long scannerId = decode(body, op, b -> Wire.readVarlong(b, "scanner id"));
                ServerScanner s = scanners.get(scannerId);
                if (s != null && s.owner == c && scanners.remove(scannerId, s)) {
                    s.cancel(); // another connection's scanner is left alone, and answered like an unknown one
                }
                c.respond(id, op, _ -> { });
            }
        }
    }

    private static <T> T decode(ByteBuf body, OpCode op, Function<ByteBuf, T> reader) {
        T value = reader.apply(body);
        Wire.end(body, op.toString());
        return value;
    }

    private static String name(ByteBuf body, OpCode op) {
        return decode(body, op, b -> Wire.readString(b, "table name"));
    }

    private AsyncTable table(ServerConnection c, ByteBuf body) {
        return c.view(store).table(Wire.readString(body, "table name"));
    }

    /** The table a request names, as the connection's user reaches it (checked when the server authenticates). */
    private AsyncTable table(ServerConnection c, ByteBuf body, CallId call) {
        String name = Wire.readString(body, "table name");
        if (call == null) {
            return c.view(store).table(name);
        }
        AsyncTable once = ((IdentifiedCalls) store).table(name, call);
        return access == null ? once : access.guard(c.user(), once);
    }

    /** The store's admin as the connection's user reaches it. */
    private io.basalt.client.Admin admin(ServerConnection c) {
        return c.view(store).admin();
    }

    /** The users and grants this server checks requests against, or null when it does not authenticate. */
    @Override
    public AccessControl access() {
        return access;
    }

    /**
     * Runs a user or grant operation (it reads and writes the store, blocking: it runs on the
     * request's virtual thread). In a cluster the users' table is a replicated table like any other.
     */
    private <T> CompletableFuture<T> users(java.util.concurrent.Callable<T> op) {
        try {
            return CompletableFuture.completedFuture(op.call());
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The users and grants: the checking instance, or (auth=none) one that only reads and writes them. */
    private AccessControl acl() {
        if (access != null) {
            return access;
        }
        synchronized (this) {
            if (unchecked == null) {
                unchecked = AccessControl.over(store, java.util.Set.of(), java.time.Duration.ZERO);
            }
            return unchecked;
        }
    }

    /** {@code call}, with a line in the audit log when it is answered. */
    private static <T> Supplier<CompletableFuture<T>> audited(ServerConnection c, OpCode op, String target,
                                                             Supplier<CompletableFuture<T>> call) {
        return () -> {
            CompletableFuture<T> f;
            try {
                f = call.get();
            } catch (RuntimeException e) {
                if (!(e instanceof io.basalt.client.security.AccessDeniedException)) {
                    Audit.operation(c, op, target, e);
                }
                throw e;
            }
            // a refusal is audited where it is answered (ServerConnection.fail), once
            return f.whenComplete((ok, failure) -> {
                if (!(ServerConnection.unwrap(failure) instanceof io.basalt.client.security.AccessDeniedException)) {
                    Audit.operation(c, op, target, failure);
                }
            });
        };
    }

    /**
     * Tries {@code get} here, on the event loop, where the store keeps {@link MemoryOnlyReads}'
     * contract: answers it and returns true when everything it reads is in memory; false (having
     * answered nothing) when it needs the disk or more than {@link #INLINE_BLOCKS} blocks, for a
     * worker to run it. A get with a filter never comes here: a filter may run comparisons of any
     * cost, and one connection's filter must not hold up the other connections of its event loop.
     */
    private boolean answeredInMemory(ServerConnection c, long id, AsyncTable table, Get get) {
        Result result = null;
        Throwable failure = null;
        try {
            CompletableFuture<Result> f = MemoryOnlyReads.attempt(INLINE_BLOCKS, () -> table.get(get));
            if (!f.isDone()) { // a capable store answers an attempt at once; a get changes nothing, so a worker asks again
                failure = MemoryOnlyReads.WOULD_WAIT;
            } else {
                result = f.join();
            }
        } catch (CompletionException e) {
            failure = e.getCause();
        } catch (RuntimeException e) {
            failure = e;
        }
        if (failure instanceof MemoryOnlyReads.WouldWait) {
            c.server().metrics().eventLoopGet(false);
            return false;
        }
        if (failure != null) {
            c.fail(id, OpCode.GET, failure);
            return true;
        }
        c.server().metrics().eventLoopGet(true);
        Result answer = result;
        int size = Messages.resultsSizeHint(List.of(answer));
        c.answeredInline(size);
        c.respond(id, OpCode.GET, size, buf -> Messages.writeResult(buf, answer));
        return true;
    }

    /** Calls the store on a virtual thread and answers with {@code writer} (null: an empty body). */
    private <T> void run(ServerConnection c, long id, OpCode op, Supplier<CompletableFuture<T>> call,
                         BiConsumer<ByteBuf, T> writer) {
        executor.execute(() -> {
            CompletableFuture<T> f;
            try {
                f = call.get();
            } catch (RuntimeException e) {
                c.fail(id, op, e);
                return;
            }
            f.whenComplete((value, failure) -> {
                if (failure != null) {
                    c.fail(id, op, failure);
                } else {
                    c.respond(id, op, value instanceof Result r ? Messages.resultsSizeHint(List.of(r)) : 128, buf -> {
                        if (writer != null) {
                            writer.accept(buf, value);
                        }
                    });
                }
            });
        });
    }

    private void batch(ServerConnection c, long id, AsyncTable table, List<Mutation> mutations) {
        List<CompletableFuture<Object>> futures;
        try {
            futures = table.batch(mutations);
        } catch (RuntimeException e) {
            c.fail(id, OpCode.BATCH, e);
            return;
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).whenComplete((_, _) ->
                c.respond(id, OpCode.BATCH, buf -> {
                    Wire.writeVarint(buf, futures.size());
                    for (CompletableFuture<Object> f : futures) {
                        Object value;
                        try {
                            value = f.join();
                        } catch (RuntimeException e) {
                            Throwable t = ServerConnection.unwrap(e);
                            if (t instanceof io.basalt.client.security.AccessDeniedException) {
                                Audit.denied(c, OpCode.BATCH, t.getMessage());
                            }
                            buf.writeByte(ServerConnection.statusOf(t).code());
                            Messages.writeError(buf, String.valueOf(t.getMessage()), ServerConnection.argsOf(t));
                            continue;
                        }
                        buf.writeByte(Status.OK.code());
                        Wire.writeBoolean(buf, value instanceof Result);
                        if (value instanceof Result r) {
                            Messages.writeResult(buf, r);
                        }
                    }
                }));
    }

    // ------------------------------------------------------------------ scanners

    private final class ServerScanner {
        final long id;
        final ServerConnection owner;
        final ResultScanner scanner;
        final int caching;
        final long maxBytes;
        volatile long lastUsed = System.nanoTime();
        boolean closed;
        /** Set, without the monitor, when nobody will read the scan any more: a batch being made stops. */
        private volatile boolean cancelled;
        /** Completes on {@link #cancel()}, so a batch waiting for the store's next row wakes. */
        private final CompletableFuture<Void> cancelling = new CompletableFuture<>();
        /** What the last batch could not take: the next batch starts with it. */
        private Result carry;
        /** A row being looked for when the last batch ran out of time; the next batch waits on it. */
        private CompletableFuture<Result> looking;
        /** The number of the batch to make next: the open request's batch is 0. */
        private long nextNumber;
        /** Every batch up to this one has been asked for (set on the owner's event loop). */
        private volatile long askedThrough;
        /** Batches asked for beyond {@link #askedThrough}, ahead of one before them (event loop only). */
        private final TreeSet<Long> askedEarly = new TreeSet<>();

        ServerScanner(long id, ServerConnection owner, ResultScanner scanner, Scan scan) {
            this.id = id;
            this.owner = owner;
            this.scanner = scanner;
            this.caching = scan.caching();
            this.maxBytes = scan.maxResultSize();
        }

        /**
         * Records, on the owner's event loop and so in the order requests came, that batch
         * {@code number} has been asked for. Requests for one scanner may reach it out of order
         * (each runs on its own thread), but a client sends them in order; one asking again for a
         * batch, or for one far beyond any asked for, is refused here, at once.
         *
         * @throws IllegalArgumentException naming the batch and the next one expected
         */
        void asked(long number) {
            long through = askedThrough;
            if (number <= through) {
                throw new IllegalArgumentException("scanner " + id + " was asked for batch " + number
                        + " again; the next is " + (through + 1));
            }
            if (number > through + MAX_ASKED_EARLY || (number > through + 1 && askedEarly.size() >= MAX_ASKED_EARLY)) {
                throw new IllegalArgumentException("scanner " + id + " was asked for batch " + number
                        + " but batch " + (through + 1) + " was never asked for");
            }
            askedEarly.add(number);
            while (!askedEarly.isEmpty() && askedEarly.first() == through + 1) {
                askedEarly.pollFirst();
                through++;
            }
            askedThrough = through;
        }

        /**
         * Waits until batch {@code number} is the next to make. A client that reads ahead sends
         * several {@code SCAN_NEXT} requests, in order, and each runs on its own thread, so they
         * may reach the scanner out of order; numbering puts each batch in the response to the
         * request that asked for it. Once every earlier batch has been asked for ({@link #asked}),
         * the wait is bounded by the scanner lease; a batch whose predecessors have not all been
         * asked for waits at most {@link #ASK_GRACE_NANOS} for them.
         *
         * @throws IllegalArgumentException when the batch was made already, or when the batches
         *     before it were not asked for in time
         */
        private void awaitTurn(long number) {
            long start = System.nanoTime();
            while (number > nextNumber && !closed) {
                // Once every earlier batch has been asked for, they are all on their way through
                // this scanner; until then, a missing one gets a short grace to arrive.
                long limit = askedThrough >= number - 1 ? leaseNanos : ASK_GRACE_NANOS;
                long left = start + limit - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalArgumentException("scanner " + id + " was asked for batch " + number
                            + " but batch " + nextNumber + " was never asked for");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new UnknownScannerException("scanner " + id + ": the server is stopping");
                }
            }
            if (number < nextNumber && !closed) {
                throw new IllegalArgumentException("scanner " + id + " was asked for batch " + number
                        + " again; the next is " + nextNumber);
            }
        }

        /**
         * The next batch; {@code more} is false once the scan is over (and then it is closed).
         * Whole results go in until the batch has {@code caching} of them or {@code maxBytes};
         * a result that would not fit waits for the next batch, and one larger than
         * {@code maxBytes} on its own is cut into partial results of about {@code maxBytes}.
         */
        synchronized boolean next(long number, List<Result> out) {
            awaitTurn(number);
            if (closed) {
                throw new UnknownScannerException("scanner " + id + " was closed");
            }
            nextNumber++;
            lastUsed = System.nanoTime();
            long deadline = lastUsed + timeLimitNanos;
            long bytes = 0;
            try {
                while (caching == 0 || out.size() < caching) {
                    if (cancelled) {
                        throw new UnknownScannerException("scanner " + id + " was closed");
                    }
                    Result r = carry != null ? carry : nextRow(deadline);
                    if (r == OUT_OF_TIME && cancelled) {
                        throw new UnknownScannerException("scanner " + id + " was closed");
                    }
                    carry = null;
                    if (r == OUT_OF_TIME) {
                        if (out.isEmpty()) {
                            heartbeats.incrementAndGet();
                        }
                        return true; // what was found so far, maybe nothing: a heartbeat
                    }
                    if (r == null) {
                        close();
                        return false;
                    }
                    long size = size(r.cells(), 0, r.size());
                    if (bytes + size <= maxBytes) {
                        out.add(r);
                        bytes += size;
                    } else if (!out.isEmpty()) {
                        carry = r; // starts the next batch
                        return true;
                    } else {
                        cut(r, out);
                        return true;
                    }
                }
                return true;
            } finally {
                lastUsed = System.nanoTime();
                notifyAll(); // the request for the batch after this one may be waiting
            }
        }

        /**
         * The store's next row, or {@link #OUT_OF_TIME} when none came by {@code deadline}: the
         * search goes on in the background and the next batch picks it up. The store's scanner
         * is only ever called by one thread at a time, each call after the previous returned.
         */
        private Result nextRow(long deadline) {
            if (looking == null) {
                looking = CompletableFuture.supplyAsync(scanner::next, executor);
            }
            try {
                if (!looking.isDone()) {
                    // Wake for the row, the deadline or a cancel, whichever comes first.
                    CompletableFuture.anyOf(looking, cancelling).get(Math.max(0, deadline - System.nanoTime()),
                            TimeUnit.NANOSECONDS);
                    if (!looking.isDone()) {
                        return OUT_OF_TIME;
                    }
                }
                Result r = looking.get();
                looking = null;
                return r;
            } catch (TimeoutException e) {
                return OUT_OF_TIME;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while scanning", e);
            } catch (ExecutionException e) {
                looking = null;
                throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
            }
        }

        /** Adds the head of {@code r} (about maxBytes, at least one cell) as a partial result. */
        private void cut(Result r, List<Result> out) {
            List<Cell> cells = r.cells();
            int end = 0;
            long bytes = 0;
            while (end < cells.size() && (end == 0 || bytes + CellLayout.encodedLength(cells.get(end)) <= maxBytes)) {
                bytes += CellLayout.encodedLength(cells.get(end));
                end++;
            }
            if (end == cells.size()) {
                out.add(r);
                return;
            }
            out.add(Result.of(cells.subList(0, end), true));
            carry = Result.of(cells.subList(end, cells.size()), r.isPartial());
        }

        private static long size(List<Cell> cells, int from, int to) {
            long bytes = 0;
            for (int i = from; i < to; i++) {
                bytes += CellLayout.encodedLength(cells.get(i));
            }
            return bytes;
        }

        /**
         * Stops the scan without waiting for a batch being made (that stops at its next row) and
         * closes it; from any thread. The scanner must be out of {@link #scanners} already, or be
         * taken out by the caller.
         */
        void cancel() {
            cancelled = true;
            cancelling.complete(null);
            scanners.remove(id, this);
            try {
                executor.execute(this::close);
            } catch (RejectedExecutionException e) {
                close(); // the handler is closing: no batch runs any more
            }
        }

        synchronized void close() {
            if (!closed) {
                closed = true;
                notifyAll(); // requests waiting for their turn find the scanner closed
                scanners.remove(id, this);
                owner.openScanners.decrementAndGet(); // the store's scanner may close later (below): it is on its way
                if (looking != null) {
                    looking.whenComplete((_, _) -> scanner.close()); // not while it is in next()
                } else {
                    scanner.close();
                }
            }
        }
    }

    /**
     * Takes one of the connection's {@link ServerConfig#maxScannersPerConnection()} places.
     *
     * @throws TooManyScannersException naming the limit and the connection, when none is left
     */
    private void reserveScanner(ServerConnection c) {
        if (c.openScanners.incrementAndGet() > maxScanners) {
            c.openScanners.decrementAndGet();
            throw new TooManyScannersException("the connection from " + c.peer() + " holds " + maxScanners
                    + " open scanners, the most maxScannersPerConnection allows: close scanners that are done"
                    + " (ResultScanner.close) or raise the server's limit");
        }
    }

    private void openScanner(ServerConnection c, long requestId, AsyncTable table, Scan scan) {
        ServerScanner s = null;
        List<Result> batch = new ArrayList<>();
        boolean more;
        try {
            reserveScanner(c);
            ResultScanner opened;
            try {
                opened = table.scanner(scan);
            } catch (RuntimeException e) {
                c.openScanners.decrementAndGet();
                throw e;
            }
            s = new ServerScanner(scannerIds.incrementAndGet(), c, opened, scan); // its close() gives the place back
            scanners.put(s.id, s);
            if (!c.isOpen()) {
                s.cancel(); // the connection closed while the store opened the scanner: nobody will read it
            }
            more = s.next(0, batch);
        } catch (RuntimeException e) {
            if (s != null) {
                s.cancel(); // its first batch failed: the client never learns its id, so nobody could close it
            }
            c.fail(requestId, OpCode.SCAN_OPEN, e);
            return;
        }
        long scannerId = s.id;
        c.respond(requestId, OpCode.SCAN_OPEN, Messages.resultsSizeHint(batch), buf -> {
            Wire.writeVarlong(buf, scannerId);
            Wire.writeBoolean(buf, more);
            Messages.writeResults(buf, batch);
        });
    }

    private void nextBatch(ServerConnection c, long requestId, long scannerId, long number) {
        ServerScanner s = scanners.get(scannerId);
        List<Result> batch = new ArrayList<>();
        boolean more;
        try {
            if (s == null || s.owner != c) {
                throw new UnknownScannerException("scanner " + scannerId + " is unknown: it was idle longer than the "
                        + "scanner lease of " + TimeUnit.NANOSECONDS.toMillis(leaseNanos) + " ms, was closed, or never"
                        + " existed on this connection");
            }
            more = s.next(number, batch);
        } catch (RuntimeException e) {
            c.fail(requestId, OpCode.SCAN_NEXT, e);
            return;
        }
        c.respond(requestId, OpCode.SCAN_NEXT, Messages.resultsSizeHint(batch), buf -> {
            Wire.writeBoolean(buf, more);
            Messages.writeResults(buf, batch);
        });
    }

    private void expireScanners() {
        long now = System.nanoTime();
        for (ServerScanner s : scanners.values()) {
            if (now - s.lastUsed > leaseNanos && scanners.remove(s.id, s)) {
                LOG.info("scanner {} of {} expired after {} ms idle", s.id, s.owner.peer(),
                        TimeUnit.NANOSECONDS.toMillis(now - s.lastUsed));
                s.cancel();
            }
        }
    }

    @Override
    public void closed(ServerConnection c) {
        for (ServerScanner s : scanners.values()) {
            if (s.owner == c && scanners.remove(s.id, s)) {
                s.cancel();
            }
        }
    }

    /**
     * Cancels every scanner, waits at most {@link #ABANDON_WAIT_NANOS} for running tasks, and
     * closes the store (see "Abandoned scans" above).
     */
    @Override
    public void close() {
        reaper.shutdownNow();
        executor.shutdown(); // before the cancels, so each closes its scanner on this thread
        for (ServerScanner s : scanners.values()) {
            s.cancel();
        }
        try {
            if (!executor.awaitTermination(ABANDON_WAIT_NANOS, TimeUnit.NANOSECONDS)) {
                LOG.warn("closing the store under requests and scans still running after the shutdown grace;"
                        + " they fail with the store's error");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (access != null) {
            access.close();
        }
        store.close();
    }
}
