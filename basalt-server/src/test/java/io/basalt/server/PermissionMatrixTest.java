package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.client.Append;
import io.basalt.client.Basalt;
import io.basalt.client.BasaltException;
import io.basalt.client.BufferedMutator;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.RowMutations;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableNotFoundException;
import io.basalt.client.filter.KeyOnlyFilter;
import io.basalt.client.filter.PrefixFilter;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.security.AccessControl;
import io.basalt.client.security.AccessDeniedException;
import io.basalt.client.security.Action;
import io.basalt.client.security.AuthenticationException;
import io.basalt.client.security.Permission;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, permissions: every operation a user can ask for, against every scope a grant can have
 * (nothing; each of R, W, X, C, A globally, on table {@code t} and on table {@code u}; R and W on
 * the families {@code t:f} and {@code u:f}; a superuser), on the embedded API
 * ({@link AccessControl#as}) and over the network (a server with {@code auth=password}).
 *
 * <p>Each outcome is compared with an oracle written here from the rules (AccessControl's class
 * comment, {@link Action}, {@link Permission}, the user methods of {@link io.basalt.client.Admin}),
 * never by asking AccessControl: an allowed operation must complete, a refused one must fail with
 * {@link AccessDeniedException} naming the user and leave the store as it was. Every disagreement
 * is collected, and the test fails once listing them all.
 *
 * <p>The rules, as the oracle ({@link Rules}) has them: a read or write that names no family needs
 * R or W on the whole table (or globally), one that names families needs it on each, a read with a
 * filter needs R on the table (a filter may look anywhere in the row); a check-and-mutate needs R
 * where its condition looks and W where its mutations go; creating a table needs C or A globally;
 * alter, truncate, disable, enable, drop, flush, compact, split and merge need C or A on the table
 * or globally; describe, list regions, locate and is-disabled need any grant but X touching the table;
 * server status and user management need global A; granting and revoking on a table need A on it or
 * globally; X allows nothing; one's own password and permissions are always one's own; and the
 * table {@value AccessControl#TABLE} is never reached directly, by anyone, superusers included.
 * Flush and compact take a region's name too ({@code table,start,id}, Admin's doc): that is an
 * operation on the region's table, so it needs what the table's name would, and a region of
 * {@value AccessControl#TABLE} is refused as the table is.
 */
class PermissionMatrixTest {

    private static final String ROOT = "root";
    private static final String BOB = "bob";
    private static final String CAROL = "carol";
    private static final String ACL = AccessControl.TABLE;
    private static final Map<String, String> PASSWORDS = Map.of(ROOT, "root-password", BOB, "bob-password",
            CAROL, "carol-password");
    /**
     * No block cache: the server outlives each test method, and a block it cached in one would be
     * counted as a buffer that method never released.
     */
    private static final StoreOptions STORE = StoreOptions.defaults().withDurability(Durability.ASYNC)
            .withBlockCacheSize(0);
    private static final byte[] F = b("f");
    private static final byte[] G = b("g");
    private static final byte[] Q = b("q");
    private static final byte[] V = b("v");

    @TempDir
    static Path dirs;

    private static BasaltServer server;
    private static Connection rootNet;
    private static Connection bobNet;
    /** The name of the region of {@value AccessControl#TABLE} in the server's store, read before it started. */
    private static String serverAclRegion;

    private static final AtomicInteger UNIQUE = new AtomicInteger();
    /** Cases the oracle allowed (the rest it refused). */
    private static final AtomicInteger ALLOWED = new AtomicInteger();

    enum Mode { EMBEDDED, NETWORK }

    @BeforeAll
    static void startServer() throws Exception {
        Path data = dirs.resolve("server");
        // Users are made where the store is, before the server takes it: root needs a password to log in at all.
        try (Connection owner = Basalt.open(data, STORE)) {
            for (String user : List.of(ROOT, BOB, CAROL)) {
                join(owner.admin().addUser(user, password(user)));
            }
            serverAclRegion = join(owner.admin().listRegions(ACL)).getFirst().name();
        }
        server = BasaltServer.start(ServerConfig.builder().port(0).httpPort(ServerConfig.NO_HTTP).dataDir(data)
                .store(STORE).ioThreads(1).auth(ServerConfig.AuthSettings.passwords(ROOT)).build());
        rootNet = connect(ROOT, PASSWORDS.get(ROOT));
        bobNet = connect(BOB, PASSWORDS.get(BOB));
    }

    @AfterAll
    static void stopServer() {
        if (bobNet != null) {
            bobNet.close();
        }
        if (rootNet != null) {
            rootNet.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static Connection connect(String user, String password) {
        ClientOptions.Builder options = ClientOptions.builder().connectTimeout(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(30)).retries(3).retryBackoff(Duration.ofMillis(100));
        if (user != null) {
            options.credentials(user, password.toCharArray());
        }
        return Basalt.connect("basalt://127.0.0.1:" + server.address().getPort(), options.build(), StoreOptions.defaults());
    }

    // ------------------------------------------------------------------ the matrix

    @Test
    void everyOperationAgainstEveryGrantScopeEmbeddedAndOverTheNetwork() {
        long start = System.nanoTime();
        List<String> mismatches = new ArrayList<>();
        int cases = 0;
        try (Connection store = Basalt.open(dirs.resolve("embedded"), STORE);
             AccessControl access = AccessControl.over(store, Set.of(ROOT), Duration.ZERO)) {
            Connection root = access.as(ROOT);
            for (String user : List.of(ROOT, BOB, CAROL)) {
                join(root.admin().addUser(user, password(user)));
            }
            cases += runMatrix(Mode.EMBEDDED, root, access.as(BOB), access,
                    () -> join(store.admin().listRegions(ACL)).getFirst().name(), mismatches);
        }
        cases += runMatrix(Mode.NETWORK, rootNet, bobNet, server.handler().access(), () -> serverAclRegion, mismatches);

        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("PermissionMatrixTest: " + cases + " cases (" + GRANTS.size() + " grant cases x "
                + OPS.size() + " operations x 2 modes), " + ALLOWED.get() + " allowed and " + (cases - ALLOWED.get())
                + " refused by the rules, in " + millis + " ms; " + mismatches.size() + " mismatches");
        mismatches.forEach(m -> System.out.println("  MISMATCH " + m));
        assertThat(cases).as("cases run").isGreaterThan(500);
        assertThat(mismatches).as(mismatches.size() + " of " + cases + " cases disagree with the rules:\n"
                + String.join("\n", mismatches)).isEmpty();
    }

    private static int runMatrix(Mode mode, Connection root, Connection bob, AccessControl acl,
                                 Supplier<String> aclRegion, List<String> mismatches) {
        int cases = 0;
        Permission held = null;
        for (Grant g : GRANTS) {
            revokeAll(root, BOB); // not revoke(held): an allowed "dropTable t" took the grants on t with it
            held = g.permission();
            if (held != null) {
                join(root.admin().grant(held));
            }
            resetFixtures(root);
            Connection actor = g.superuser() ? root : bob;
            String actorName = g.superuser() ? ROOT : BOB;
            Rules rules = new Rules(g);
            for (Op op : OPS) {
                Ctx ctx = new Ctx(mode, actor, actorName, root, UNIQUE.incrementAndGet(), rules, acl, aclRegion,
                        new HashMap<>());
                String mismatch = check(op, ctx);
                cases++;
                if (mismatch != null) {
                    mismatches.add(mode + " | " + g.label() + " | " + op.name + ": " + mismatch);
                }
            }
        }
        revokeAll(root, BOB);
        resetFixtures(root);
        return cases;
    }

    /** Runs one operation as the case's actor; null when the outcome is the oracle's, else what differs. */
    private static String check(Op op, Ctx ctx) {
        boolean allowed = op.expected.test(ctx.rules());
        if (allowed) {
            ALLOWED.incrementAndGet();
        }
        try {
            op.setup.accept(ctx);
        } catch (RuntimeException | AssertionError e) {
            return "the fixture for it could not be set up: " + e;
        }
        Object value = null;
        Throwable failure = null;
        try {
            value = await(op.run.apply(ctx));
        } catch (Exception e) {
            failure = unwrap(e);
        }
        String mismatch = null;
        if (failure instanceof AccessDeniedException denied) {
            String message = String.valueOf(denied.getMessage());
            if (allowed) {
                mismatch = "REFUSED, but the rules allow it: " + message;
            } else if (!op.system && !message.contains("'" + ctx.actorName() + "'")) {
                mismatch = "refused as it should be, but the message does not name user '" + ctx.actorName() + "': "
                        + message;
            } else {
                try {
                    op.unchanged.accept(ctx);
                } catch (RuntimeException | AssertionError e) {
                    mismatch = "refused, but the store CHANGED: " + e.getMessage();
                }
            }
        } else if (failure != null) {
            if (!(allowed && op.tolerated.test(failure))) {
                mismatch = (allowed ? "allowed by the rules, but failed with " : "should be refused with"
                        + " AccessDeniedException, but failed with ") + failure;
            }
        } else if (!allowed) {
            mismatch = "ALLOWED, but the rules refuse it (it completed with " + abbreviate(value) + ")";
        } else {
            try {
                op.result.accept(ctx, value);
            } catch (RuntimeException | AssertionError e) {
                mismatch = "allowed, but its result is wrong: " + e.getMessage();
            }
        }
        try {
            op.cleanup.accept(ctx);
        } catch (RuntimeException | AssertionError e) {
            mismatch = (mismatch == null ? "" : mismatch + "; ") + "cleaning up after it failed: " + e;
        }
        return mismatch;
    }

    // ------------------------------------------------------------------ grant cases

    /** What the actor holds: one grant ({@code letters} at the table, family or globally), nothing, or everything (a superuser). */
    record Grant(String label, boolean superuser, String table, String family, String letters) {
        Permission permission() {
            if (letters == null) {
                return null;
            }
            Set<Action> actions = Action.parse(letters);
            return family != null ? Permission.onFamily(BOB, table, family, actions)
                    : table != null ? Permission.onTable(BOB, table, actions) : Permission.global(BOB, actions);
        }
    }

    private static final List<Grant> GRANTS = grants();

    private static List<Grant> grants() {
        List<Grant> out = new ArrayList<>();
        out.add(new Grant("nothing", false, null, null, null));
        for (String l : List.of("R", "W", "X", "C", "A")) {
            out.add(new Grant(l + " global", false, null, null, l));
        }
        for (String table : List.of("t", "u")) {
            for (String l : List.of("R", "W", "X", "C", "A")) {
                out.add(new Grant(l + " on " + table, false, table, null, l));
            }
            for (String l : List.of("R", "W")) {
                out.add(new Grant(l + " on " + table + ":f", false, table, "f", l));
            }
        }
        out.add(new Grant("superuser root", true, null, null, null));
        return List.copyOf(out);
    }

    /** The oracle: what the actor may do, from the rules in the class comment. */
    record Rules(Grant g) {
        /** Whether the actor holds {@code action} on {@code table}'s {@code family} (null: the whole table; both null: globally). */
        boolean holds(char action, String table, String family) {
            if (g.superuser()) {
                return true;
            }
            if (g.letters() == null || g.letters().indexOf(action) < 0) {
                return false;
            }
            if (g.table() == null) {
                return true; // a global grant covers every table and family
            }
            if (!g.table().equals(table)) {
                return false; // a table grant does not cover another table, nor the global scope
            }
            return g.family() == null || g.family().equals(family);
        }

        /** R on each family named, or on the table when none is. */
        boolean read(String table, String... families) {
            return on('R', table, families);
        }

        /** W on each family touched, or on the table when none is (a whole-row delete). */
        boolean write(String table, String... families) {
            return on('W', table, families);
        }

        private boolean on(char action, String table, String... families) {
            if (families.length == 0) {
                return holds(action, table, null);
            }
            for (String f : families) {
                if (!holds(action, table, f)) {
                    return false;
                }
            }
            return true;
        }

        /** C or A on the table (or globally); with null, globally. */
        boolean manage(String table) {
            return holds('C', table, null) || holds('A', table, null);
        }

        boolean create() {
            return manage(null);
        }

        /** Any grant but X alone touching the table, or a global one: the table may be seen. */
        boolean sees(String table) {
            return g.superuser() || g.letters() != null && !g.letters().equals("X")
                    && (g.table() == null || g.table().equals(table));
        }

        boolean globalAdmin() {
            return holds('A', null, null);
        }

        boolean adminOf(String table) {
            return holds('A', table, null);
        }

        /** The actor's own grants, as permissions() should list them. */
        List<Permission> own() {
            return g.permission() == null ? List.of() : List.of(g.permission());
        }
    }

    // ------------------------------------------------------------------ operations

    /** One case's surroundings: who acts, root for fixtures and checks, a number to make names unique. */
    record Ctx(Mode mode, Connection actor, String actorName, Connection root, int n, Rules rules, AccessControl acl,
               Supplier<String> aclRegion, Map<String, Object> memo) {
        io.basalt.client.AsyncTable t() {
            return actor.table("t");
        }

        io.basalt.client.Admin admin() {
            return actor.admin();
        }

        String row(String prefix) {
            return prefix + n;
        }
    }

    /** One operation: how to run it, when the rules allow it, and how to tell that a refused one changed nothing. */
    static final class Op {
        final String name;
        final Predicate<Rules> expected;
        final Function<Ctx, Object> run;
        /** Reaches the system table: refused whoever asks, and the refusal need not name the user. */
        boolean system;
        Consumer<Ctx> setup = _ -> { };
        Consumer<Ctx> unchanged = _ -> { };
        Consumer<Ctx> cleanup = _ -> { };
        BiConsumer<Ctx, Object> result = (_, _) -> { };
        Predicate<Throwable> tolerated = _ -> false;

        Op(String name, Predicate<Rules> expected, Function<Ctx, Object> run) {
            this.name = name;
            this.expected = expected;
            this.run = run;
        }

        Op setup(Consumer<Ctx> c) {
            setup = c;
            return this;
        }

        Op unchanged(Consumer<Ctx> c) {
            unchanged = c;
            return this;
        }

        Op cleanup(Consumer<Ctx> c) {
            cleanup = c;
            return this;
        }

        Op result(BiConsumer<Ctx, Object> c) {
            result = c;
            return this;
        }

        Op tolerate(Predicate<Throwable> p) {
            tolerated = p;
            return this;
        }

        Op system() {
            system = true;
            return this;
        }
    }

    private static final List<Op> OPS = operations();

    private static List<Op> operations() {
        List<Op> ops = new ArrayList<>();

        // ---- reads of t
        ops.add(new Op("get a whole row of t", r -> r.read("t"), c -> c.t().get(Get.of("r1")))
                .result((_, v) -> assertThat(familiesOf((Result) v)).containsExactly("f", "g")));
        ops.add(new Op("get of t, family f", r -> r.read("t", "f"), c -> c.t().get(Get.of("r1").addFamily(F)))
                .result((_, v) -> assertThat(familiesOf((Result) v)).containsExactly("f")));
        ops.add(new Op("get of t, family g", r -> r.read("t", "g"), c -> c.t().get(Get.of("r1").addFamily(G)))
                .result((_, v) -> assertThat(familiesOf((Result) v)).containsExactly("g")));
        ops.add(new Op("get of t, families f and g", r -> r.read("t", "f", "g"),
                c -> c.t().get(Get.of("r1").addFamily(F).addFamily(G)))
                .result((_, v) -> assertThat(familiesOf((Result) v)).containsExactly("f", "g")));
        ops.add(new Op("exists-style get of one column t:f:q", r -> r.read("t", "f"),
                c -> c.t().get(Get.of("r1").addColumn(F, Q)))
                .result((_, v) -> assertThat(((Result) v).value("f", "q")).isEqualTo(V)));
        ops.add(new Op("get of t, family f, with a filter", r -> r.read("t"),
                c -> c.t().get(Get.of("r1").addFamily(F).setFilter(new KeyOnlyFilter())))
                .result((_, v) -> assertThat(((Result) v).isEmpty()).isFalse()));
        ops.add(new Op("scanAll of t", r -> r.read("t"), c -> c.t().scanAll(fixtureRows()))
                .result((_, v) -> assertThat((List<?>) v).hasSize(3)));
        ops.add(new Op("scanAll of t, family f", r -> r.read("t", "f"), c -> c.t().scanAll(fixtureRows().addFamily(F)))
                .result((_, v) -> assertThat((List<?>) v).hasSize(3)));
        ops.add(new Op("scanAll of t, family g", r -> r.read("t", "g"), c -> c.t().scanAll(fixtureRows().addFamily(G)))
                .result((_, v) -> assertThat((List<?>) v).hasSize(3)));
        ops.add(new Op("scanAll of t, family f, with a filter", r -> r.read("t"),
                c -> c.t().scanAll(new Scan().addFamily(F).setFilter(new PrefixFilter(b("r")))))
                .result((_, v) -> assertThat((List<?>) v).hasSize(3)));
        ops.add(new Op("scanner over t, iterated", r -> r.read("t"), c -> iterate(c.t(), fixtureRows()))
                .result((_, v) -> assertThat(v).isEqualTo(3)));
        ops.add(new Op("scanner over t, family f, iterated", r -> r.read("t", "f"),
                c -> iterate(c.t(), fixtureRows().addFamily(F)))
                .result((_, v) -> assertThat(v).isEqualTo(3)));

        // ---- writes of t (each to rows of its own, so a refused one can be seen to have changed nothing)
        ops.add(new Op("put into t:f", r -> r.write("t", "f"),
                c -> c.t().put(new Put(b(c.row("p"))).addColumn(F, Q, V)))
                .unchanged(c -> assertAbsent(c, "t", c.row("p"))));
        ops.add(new Op("put into t:g", r -> r.write("t", "g"),
                c -> c.t().put(new Put(b(c.row("p"))).addColumn(G, Q, V)))
                .unchanged(c -> assertAbsent(c, "t", c.row("p"))));
        ops.add(new Op("put into t:f and t:g at once", r -> r.write("t", "f", "g"),
                c -> c.t().put(new Put(b(c.row("p"))).addColumn(F, Q, V).addColumn(G, Q, V)))
                .unchanged(c -> assertAbsent(c, "t", c.row("p"))));
        ops.add(new Op("delete of a column of t:f", r -> r.write("t", "f"),
                c -> c.t().delete(new Delete(b(c.row("d"))).addColumns(F, Q)))
                .setup(c -> rootPut(c.root(), "t", c.row("d")))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", c.row("d")).value("f", "q")).isEqualTo(V)));
        ops.add(new Op("delete of family t:f of a row", r -> r.write("t", "f"),
                c -> c.t().delete(new Delete(b(c.row("d"))).addFamily(F)))
                .setup(c -> rootPut(c.root(), "t", c.row("d")))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", c.row("d")).value("f", "q")).isEqualTo(V)));
        ops.add(new Op("delete of a whole row of t", r -> r.write("t"),
                c -> c.t().delete(new Delete(b(c.row("d")))))
                .setup(c -> rootPut(c.root(), "t", c.row("d")))
                .unchanged(c -> assertThat(familiesOf(rootGet(c.root(), "t", c.row("d")))).containsExactly("f", "g")));
        ops.add(new Op("increment of t:f", r -> r.write("t", "f"),
                c -> c.t().increment(Increment.of(c.row("i")).addColumn(F, b("n"), 1)))
                .unchanged(c -> assertAbsent(c, "t", c.row("i"))));
        ops.add(new Op("append to t:f", r -> r.write("t", "f"),
                c -> c.t().append(Append.of(c.row("a")).addColumn("f", "q", "x")))
                .unchanged(c -> assertAbsent(c, "t", c.row("a"))));
        ops.add(new Op("batch of two puts into t:f", r -> r.write("t", "f"),
                c -> allOf(c.t().batch(List.of(new Put(b(c.row("b1-"))).addColumn(F, Q, V),
                        new Put(b(c.row("b2-"))).addColumn(F, Q, V)))))
                .unchanged(c -> {
                    assertAbsent(c, "t", c.row("b1-"));
                    assertAbsent(c, "t", c.row("b2-"));
                }));
        ops.add(new Op("batch [put t:f, put t:g]: the t:f one", r -> r.write("t", "f"),
                c -> c.t().batch(List.of(new Put(b(c.row("bm"))).addColumn(F, Q, V),
                        new Put(b(c.row("bm"))).addColumn(G, Q, V))).get(0))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", c.row("bm")).value("f", "q")).isNull()));
        ops.add(new Op("batch [put t:f, put t:g]: the t:g one", r -> r.write("t", "g"),
                c -> c.t().batch(List.of(new Put(b(c.row("bm"))).addColumn(F, Q, V),
                        new Put(b(c.row("bm"))).addColumn(G, Q, V))).get(1))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", c.row("bm")).value("g", "q")).isNull()));
        ops.add(new Op("buffered mutator: put into t:f", r -> r.write("t", "f"), c -> {
            BufferedMutator mutator = c.actor().bufferedMutator("t").build();
            CompletableFuture<Void> done = mutator.mutate(new Put(b(c.row("bf"))).addColumn(F, Q, V));
            return mutator.closeAsync().handle((_, _) -> null).thenCompose(_ -> done);
        }).unchanged(c -> assertAbsent(c, "t", c.row("bf"))));
        ops.add(new Op("checkAndMutate: if t:f:q is absent, put t:f", r -> r.read("t", "f") && r.write("t", "f"),
                c -> c.t().checkAndMutate(CheckAndMutate.onRow(b(c.row("c"))).ifAbsent(F, Q)
                        .then(new Put(b(c.row("c"))).addColumn(F, Q, V))))
                .result((_, v) -> assertThat(v).isEqualTo(true))
                .unchanged(c -> assertAbsent(c, "t", c.row("c"))));
        ops.add(new Op("checkAndMutate: if t:g:q is absent, put t:f", r -> r.read("t", "g") && r.write("t", "f"),
                c -> c.t().checkAndMutate(CheckAndMutate.onRow(b(c.row("c"))).ifAbsent(G, Q)
                        .then(new Put(b(c.row("c"))).addColumn(F, Q, V))))
                .result((_, v) -> assertThat(v).isEqualTo(true))
                .unchanged(c -> assertAbsent(c, "t", c.row("c"))));
        ops.add(new Op("checkAndMutate: if t:f:q equals v, put t:g", r -> r.read("t", "f") && r.write("t", "g"),
                c -> c.t().checkAndMutate(CheckAndMutate.onRow(b("r1")).ifEquals(F, Q, V)
                        .then(new Put(b("r1")).addColumn(G, b(c.row("cg")), V))))
                .result((_, v) -> assertThat(v).isEqualTo(true))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", "r1").value("g", c.row("cg"))).isNull()));
        ops.add(new Op("checkAndMutate with a filter condition, put t:f", r -> r.read("t") && r.write("t", "f"),
                c -> c.t().checkAndMutate(CheckAndMutate.onRow(b("r1")).ifMatches(new PrefixFilter(b("r1")))
                        .then(new Put(b("r1")).addColumn(F, b(c.row("cf")), V))))
                .result((_, v) -> assertThat(v).isEqualTo(true))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", "r1").value("f", c.row("cf"))).isNull()));
        ops.add(new Op("checkAndMutate: if t:f:q is absent, delete the whole row", r -> r.read("t", "f") && r.write("t"),
                c -> c.t().checkAndMutate(CheckAndMutate.onRow(b(c.row("cd"))).ifAbsent(F, Q)
                        .then(new Delete(b(c.row("cd"))))))
                .setup(c -> join(c.root().table("t").put(new Put(b(c.row("cd"))).addColumn(G, Q, V))))
                .result((_, v) -> assertThat(v).isEqualTo(true))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", c.row("cd")).value("g", "q")).isEqualTo(V)));
        ops.add(new Op("mutateRow: put t:f", r -> r.write("t", "f"),
                c -> c.t().mutateRow(new RowMutations(b(c.row("m"))).add(new Put(b(c.row("m"))).addColumn(F, Q, V))))
                .unchanged(c -> assertAbsent(c, "t", c.row("m"))));
        ops.add(new Op("mutateRow: put t:f, delete a column of t:g", r -> r.write("t", "f", "g"),
                c -> c.t().mutateRow(new RowMutations(b(c.row("m"))).add(new Put(b(c.row("m"))).addColumn(F, Q, V))
                        .add(new Delete(b(c.row("m"))).addColumns(G, Q))))
                .unchanged(c -> assertAbsent(c, "t", c.row("m"))));

        // ---- table u: a grant there is a grant there, and nowhere else
        ops.add(new Op("get a whole row of u", r -> r.read("u"), c -> c.actor().table("u").get(Get.of("r1")))
                .result((_, v) -> assertThat(familiesOf((Result) v)).containsExactly("f")));
        ops.add(new Op("scanAll of u, family f", r -> r.read("u", "f"),
                c -> c.actor().table("u").scanAll(fixtureRows().addFamily(F)))
                .result((_, v) -> assertThat((List<?>) v).hasSize(2)));
        ops.add(new Op("put into u:f", r -> r.write("u", "f"),
                c -> c.actor().table("u").put(new Put(b(c.row("p"))).addColumn(F, Q, V)))
                .unchanged(c -> assertAbsent(c, "u", c.row("p"))));
        ops.add(new Op("describeTable u", r -> r.sees("u"), c -> c.admin().describeTable("u")));
        ops.add(new Op("flush u", r -> r.manage("u"), c -> c.admin().flush("u")));

        // ---- tables
        ops.add(new Op("createTable", Rules::create, c -> c.admin().createTable(TableDescriptor.of(c.row("new"), "f")))
                .unchanged(c -> assertThat(tableNames(c.root())).doesNotContain(c.row("new")))
                .cleanup(c -> dropIfThere(c.root(), c.row("new"))));
        ops.add(new Op("dropTable of a table root made", Rules::create, c -> c.admin().dropTable(c.row("scratch")))
                .setup(c -> join(c.root().admin().createTable(TableDescriptor.of(c.row("scratch"), "f"))))
                .unchanged(c -> assertThat(tableNames(c.root())).contains(c.row("scratch")))
                .cleanup(c -> dropIfThere(c.root(), c.row("scratch"))));
        ops.add(new Op("describeTable t", r -> r.sees("t"), c -> c.admin().describeTable("t"))
                .result((_, v) -> assertThat(((TableDescriptor) v).name()).isEqualTo("t")));
        ops.add(new Op("listTables", _ -> true, c -> c.admin().listTables())
                .result((c, v) -> {
                    @SuppressWarnings("unchecked")
                    List<TableDescriptor> tables = (List<TableDescriptor>) v;
                    Set<String> names = tables.stream().map(TableDescriptor::name).collect(Collectors.toSet());
                    assertThat(names).as("tables listed").doesNotContain(ACL);
                    assertThat(names.contains("t")).as("t listed").isEqualTo(c.rules().sees("t"));
                    assertThat(names.contains("u")).as("u listed").isEqualTo(c.rules().sees("u"));
                }));
        ops.add(new Op("listRegions t", r -> r.sees("t"), c -> c.admin().listRegions("t")));
        ops.add(new Op("locateRegion t", r -> r.sees("t"), c -> c.admin().locateRegion("t", b("r1"))));
        ops.add(new Op("isTableDisabled t", r -> r.sees("t"), c -> c.admin().isTableDisabled("t"))
                .result((_, v) -> assertThat(v).isEqualTo(false)));
        ops.add(new Op("flush t", r -> r.manage("t"), c -> c.admin().flush("t")));
        ops.add(new Op("flush one region of t, by its name", r -> r.manage("t"),
                c -> c.admin().flush(join(c.root().admin().listRegions("t")).getFirst().name())));
        ops.add(new Op("compact t", r -> r.manage("t"), c -> c.admin().compact("t")));
        ops.add(new Op("compact one region of t, by its name", r -> r.manage("t"),
                c -> c.admin().compact(join(c.root().admin().listRegions("t")).getFirst().name())));
        ops.add(new Op("split t", r -> r.manage("t"), c -> c.admin().split("t", b(c.row("s"))))
                .unchanged(c -> assertThat(join(c.root().admin().listRegions("t"))).extracting(RegionInfo::start)
                        .noneMatch(s -> new String(s, StandardCharsets.UTF_8).equals(c.row("s")))));
        ops.add(new Op("mergeRegions of t", r -> r.manage("t"), c -> {
            List<RegionInfo> regions = join(c.root().admin().listRegions("t"));
            c.memo().put("regions", regions.size());
            return regions.size() < 2 ? c.admin().mergeRegions("t", "t,,1", "t,,2")
                    : c.admin().mergeRegions("t", regions.get(0).name(), regions.get(1).name());
        }).unchanged(c -> assertThat(join(c.root().admin().listRegions("t"))).hasSize((Integer) c.memo().get("regions"))));
        ops.add(new Op("modifyTable t (add family h)", r -> r.manage("t"),
                c -> c.admin().modifyTable(TableDescriptor.of("t", "f", "g", "h")))
                .unchanged(c -> assertThat(join(c.root().admin().describeTable("t")).family("h")).isEmpty())
                .cleanup(c -> {
                    if (join(c.root().admin().describeTable("t")).family("h").isPresent()) {
                        join(c.root().admin().modifyTable(TableDescriptor.of("t", "f", "g")));
                    }
                }));
        ops.add(new Op("disableTable t", r -> r.manage("t"), c -> c.admin().disableTable("t"))
                .unchanged(c -> assertThat(join(c.root().admin().isTableDisabled("t"))).isFalse())
                .cleanup(c -> {
                    if (join(c.root().admin().isTableDisabled("t"))) {
                        join(c.root().admin().enableTable("t"));
                    }
                }));
        ops.add(new Op("enableTable t", r -> r.manage("t"), c -> c.admin().enableTable("t")));
        // The embedded admin answers serverStatus too (EmbeddedConnection), so it is checked in both modes.
        ops.add(new Op("serverStatus", Rules::globalAdmin, c -> c.admin().serverStatus())
                .result((_, v) -> assertThat(v).isNotNull()));
        ops.add(new Op("clusterStatus (not a cluster: unsupported once allowed)", Rules::globalAdmin,
                c -> c.admin().clusterStatus())
                .tolerate(PermissionMatrixTest::isIllegalArgument));

        // ---- users and grants
        ops.add(new Op("addUser", Rules::globalAdmin, c -> c.admin().addUser(c.row("nu"), password(BOB)))
                .unchanged(c -> assertThat(join(c.root().admin().listUsers())).doesNotContain(c.row("nu")))
                .cleanup(c -> removeUserIfThere(c.root(), c.row("nu"))));
        ops.add(new Op("removeUser of a user root added", Rules::globalAdmin, c -> c.admin().removeUser(c.row("ru")))
                .setup(c -> join(c.root().admin().addUser(c.row("ru"), password(BOB))))
                .unchanged(c -> assertThat(join(c.root().admin().listUsers())).contains(c.row("ru")))
                .cleanup(c -> removeUserIfThere(c.root(), c.row("ru"))));
        ops.add(new Op("changePassword of carol", Rules::globalAdmin, c -> c.admin().changePassword(CAROL, password(CAROL)))
                .setup(c -> c.memo().put("credential", c.acl().credential(CAROL).encode()))
                .unchanged(c -> assertThat(c.acl().credential(CAROL).encode()).isEqualTo(c.memo().get("credential"))));
        ops.add(new Op("changePassword of oneself", _ -> true,
                c -> c.admin().changePassword(c.actorName(), password(c.actorName()))));
        ops.add(new Op("listUsers", Rules::globalAdmin, c -> c.admin().listUsers())
                .result((_, v) -> assertThat(strings(v)).contains(ROOT, BOB, CAROL)));
        ops.add(new Op("grant R on t to carol", r -> r.adminOf("t"),
                c -> c.admin().grant(Permission.onTable(CAROL, "t", Action.parse("R"))))
                .unchanged(c -> assertThat(join(c.root().admin().permissions(CAROL, null))).isEmpty())
                .cleanup(c -> revokeAll(c.root(), CAROL)));
        ops.add(new Op("grant R on t:f to carol", r -> r.adminOf("t"),
                c -> c.admin().grant(Permission.onFamily(CAROL, "t", "f", Action.parse("R"))))
                .unchanged(c -> assertThat(join(c.root().admin().permissions(CAROL, null))).isEmpty())
                .cleanup(c -> revokeAll(c.root(), CAROL)));
        ops.add(new Op("grant R on u to carol", r -> r.adminOf("u"),
                c -> c.admin().grant(Permission.onTable(CAROL, "u", Action.parse("R"))))
                .unchanged(c -> assertThat(join(c.root().admin().permissions(CAROL, null))).isEmpty())
                .cleanup(c -> revokeAll(c.root(), CAROL)));
        ops.add(new Op("grant R globally to carol", Rules::globalAdmin,
                c -> c.admin().grant(Permission.global(CAROL, Action.parse("R"))))
                .unchanged(c -> assertThat(join(c.root().admin().permissions(CAROL, null))).isEmpty())
                .cleanup(c -> revokeAll(c.root(), CAROL)));
        ops.add(new Op("grant RWXCA globally to oneself", Rules::globalAdmin,
                c -> c.admin().grant(new Permission(c.actorName(), null, null, Action.parse("RWXCA"))))
                .unchanged(c -> assertThat(join(c.root().admin().permissions(c.actorName(), null)))
                        .containsExactlyInAnyOrderElementsOf(c.rules().own()))
                .cleanup(c -> restoreOwn(c)));
        ops.add(new Op("revoke R on t from carol", r -> r.adminOf("t"),
                c -> c.admin().revoke(Permission.onTable(CAROL, "t", Action.parse("R"))))
                .setup(c -> join(c.root().admin().grant(Permission.onTable(CAROL, "t", Action.parse("R")))))
                .unchanged(c -> assertThat(join(c.root().admin().permissions(CAROL, null))).hasSize(1))
                .cleanup(c -> revokeAll(c.root(), CAROL)));
        ops.add(new Op("permissions(null, null)", Rules::globalAdmin, c -> c.admin().permissions(null, null)));
        ops.add(new Op("permissions(carol, null)", Rules::globalAdmin, c -> c.admin().permissions(CAROL, null)));
        ops.add(new Op("permissions(null, t)", r -> r.adminOf("t"), c -> c.admin().permissions(null, "t")));
        ops.add(new Op("permissions(oneself, null)", _ -> true, c -> c.admin().permissions(c.actorName(), null))
                .result((c, v) -> assertThat(permissions(v)).containsExactlyInAnyOrderElementsOf(c.rules().own())));

        // ---- the system table: never, for anyone
        ops.add(new Op("get from " + ACL, _ -> false, c -> c.actor().table(ACL).get(Get.of("u:" + BOB))).system());
        ops.add(new Op("get of family a from " + ACL, _ -> false,
                c -> c.actor().table(ACL).get(Get.of("u:" + BOB).addFamily(b("a")))).system());
        ops.add(new Op("scanAll of " + ACL, _ -> false, c -> c.actor().table(ACL).scanAll(new Scan())).system());
        ops.add(new Op("scanner over " + ACL + ", iterated", _ -> false,
                c -> iterate(c.actor().table(ACL), new Scan())).system());
        ops.add(new Op("put of a global RWXCA grant into " + ACL, _ -> false,
                c -> c.actor().table(ACL).put(new Put(b("g:" + c.actorName())).addColumn(b("a"), b("@"), b("RWXCA"))))
                .system().unchanged(PermissionMatrixTest::assertOwnGrantsIntact));
        ops.add(new Op("checkAndMutate writing a grant into " + ACL, _ -> false,
                c -> c.actor().table(ACL).checkAndMutate(CheckAndMutate.onRow(b("g:" + c.actorName())).always()
                        .then(new Put(b("g:" + c.actorName())).addColumn(b("a"), b("@"), b("RWXCA")))))
                .system().unchanged(PermissionMatrixTest::assertOwnGrantsIntact));
        ops.add(new Op("batch writing a grant into " + ACL, _ -> false,
                c -> allOf(c.actor().table(ACL).batch(List.of(new Put(b("g:" + c.actorName()))
                        .addColumn(b("a"), b("@"), b("RWXCA")))))).system().unchanged(PermissionMatrixTest::assertOwnGrantsIntact));
        ops.add(new Op("delete of a user's row from " + ACL, _ -> false,
                c -> c.actor().table(ACL).delete(new Delete(b("u:" + CAROL))))
                .system().unchanged(c -> assertThat(join(c.root().admin().listUsers())).contains(CAROL)));
        ops.add(new Op("createTable " + ACL, _ -> false, c -> c.admin().createTable(TableDescriptor.of(ACL, "a"))).system());
        ops.add(new Op("describeTable " + ACL, _ -> false, c -> c.admin().describeTable(ACL)).system());
        ops.add(new Op("listRegions " + ACL, _ -> false, c -> c.admin().listRegions(ACL)).system());
        ops.add(new Op("isTableDisabled " + ACL, _ -> false, c -> c.admin().isTableDisabled(ACL)).system());
        ops.add(new Op("flush " + ACL, _ -> false, c -> c.admin().flush(ACL)).system());
        ops.add(new Op("flush the region of " + ACL + ", by its name", _ -> false,
                c -> c.admin().flush(c.aclRegion().get())).system());
        ops.add(new Op("compact the region of " + ACL + ", by its name", _ -> false,
                c -> c.admin().compact(c.aclRegion().get())).system());
        ops.add(new Op("split " + ACL, _ -> false, c -> c.admin().split(ACL, b("m"))).system()
                .unchanged(c -> assertThat(join(c.root().admin().listUsers())).contains(BOB, CAROL)));
        ops.add(new Op("modifyTable " + ACL, _ -> false,
                c -> c.admin().modifyTable(TableDescriptor.of(ACL, "a", "b"))).system()
                .unchanged(c -> assertThat(join(c.root().admin().listUsers())).contains(BOB, CAROL)));
        ops.add(new Op("disableTable " + ACL, _ -> false, c -> c.admin().disableTable(ACL)).system()
                .unchanged(c -> assertThat(join(c.root().admin().listUsers())).contains(BOB, CAROL)));
        ops.add(new Op("truncateTable " + ACL, _ -> false, c -> c.admin().truncateTable(ACL, false)).system()
                .unchanged(c -> assertThat(join(c.root().admin().listUsers())).contains(BOB, CAROL)));
        ops.add(new Op("dropTable " + ACL, _ -> false, c -> c.admin().dropTable(ACL)).system()
                .unchanged(c -> assertThat(join(c.root().admin().listUsers())).contains(BOB, CAROL)));
        ops.add(new Op("grant R on " + ACL + " to carol", _ -> false,
                c -> c.admin().grant(Permission.onTable(CAROL, ACL, Action.parse("R")))).system()
                .unchanged(c -> assertThat(join(c.root().admin().permissions(CAROL, null))).isEmpty())
                .cleanup(c -> revokeAll(c.root(), CAROL)));

        // ---- last, what empties or removes t (the next case makes it again)
        ops.add(new Op("truncateTable t", r -> r.manage("t"), c -> c.admin().truncateTable("t", false))
                .unchanged(c -> assertThat(rootGet(c.root(), "t", "r1").isEmpty()).isFalse())
                .cleanup(c -> resetFixtures(c.root())));
        ops.add(new Op("dropTable t", r -> r.manage("t"), c -> c.admin().dropTable("t"))
                .unchanged(c -> assertThat(tableNames(c.root())).contains("t"))
                .cleanup(c -> resetFixtures(c.root())));
        return List.copyOf(ops);
    }

    // ------------------------------------------------------------------ beyond the matrix

    @Test
    void aClientWithoutCredentialsIsRefusedAuthenticationAtItsFirstRequest() {
        try (Connection anonymous = connect(null, null)) {
            assertThatThrownBy(() -> join(anonymous.table("t").get(Get.of("r1"))))
                    .isExactlyInstanceOf(AuthenticationException.class)
                    .hasMessageContaining("requires authentication");
            assertThatThrownBy(() -> join(anonymous.admin().listTables()))
                    .isExactlyInstanceOf(AuthenticationException.class);
            assertThatThrownBy(() -> join(anonymous.table(ACL).scanAll(new Scan())))
                    .isExactlyInstanceOf(AuthenticationException.class);
        }
        try (Connection wrong = connect(BOB, "not-bobs-password")) {
            assertThatThrownBy(() -> join(wrong.table("t").get(Get.of("r1"))))
                    .isExactlyInstanceOf(AuthenticationException.class);
        }
    }

    /** As in HBase, dropping a table drops its grants: a table made later under the name starts with none. */
    @Test
    void aDroppedTablesGrantsGoWithIt() {
        revokeAll(rootNet, BOB);
        join(rootNet.admin().createTable(TableDescriptor.of("gone", "f")));
        join(rootNet.admin().grant(Permission.onTable(BOB, "gone", Action.parse("RW"))));
        join(rootNet.admin().grant(Permission.onFamily(BOB, "gone", "f", Action.parse("R"))));
        join(rootNet.admin().grant(Permission.onTable(BOB, "t", Action.parse("R"))));
        join(bobNet.table("gone").put(Put.of("r").addColumn("f", "q", "v")));
        join(rootNet.admin().dropTable("gone"));
        join(rootNet.admin().createTable(TableDescriptor.of("gone", "f")));
        assertThat(join(bobNet.admin().permissions(BOB, null))).as("only the grant on t is left")
                .containsExactly(Permission.onTable(BOB, "t", Action.parse("R")));
        assertThatThrownBy(() -> join(bobNet.table("gone").get(Get.of("r")))).isInstanceOf(AccessDeniedException.class);
        revokeAll(rootNet, BOB);
        join(rootNet.admin().dropTable("gone"));
    }

    /**
     * A refusal is final: it arrives as {@link AccessDeniedException} (not a timeout), and the
     * client never sends the request again, reads included (which it would resend after a lost
     * connection). Counted by the server's audit lines, each written before its refusal is sent.
     */
    @Test
    void aRefusalArrivesOnceAsAccessDeniedAndIsNeverSentAgain() throws Exception {
        revokeAll(rootNet, BOB);
        resetFixtures(rootNet);
        ch.qos.logback.classic.Logger audit = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(Audit.LOGGER);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
                new ch.qos.logback.core.read.ListAppender<>();
        lines.start();
        ch.qos.logback.classic.Level level = audit.getLevel();
        audit.setLevel(ch.qos.logback.classic.Level.INFO);
        audit.addAppender(lines);
        try {
            Map<String, Supplier<CompletableFuture<?>>> requests = new java.util.LinkedHashMap<>();
            requests.put("op=GET", () -> bobNet.table("t").get(Get.of("r1"))); // a read: resendable, retries(3)
            requests.put("op=SCAN_OPEN", () -> bobNet.table("t").scanAll(new Scan()));
            requests.put("op=DESCRIBE_TABLE", () -> bobNet.admin().describeTable("t"));
            for (var request : requests.entrySet()) {
                Throwable failure = null;
                try {
                    request.getValue().get().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    failure = unwrap(e);
                }
                assertThat(failure).isExactlyInstanceOf(AccessDeniedException.class)
                        .hasMessageContaining("'" + BOB + "'");
                Thread.sleep(400); // a resend would have come by now: the first goes after 100 ms
                assertThat(lines.list.stream().map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                        .filter(l -> l.contains(request.getKey() + " ") && l.contains("user=\"bob\"")
                                && l.contains("refused: user 'bob' may not")))
                        .as("refusals of %s the server wrote", request.getKey()).hasSize(1);
            }
        } finally {
            audit.detachAppender(lines);
            audit.setLevel(level);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static void resetFixtures(Connection root) {
        Set<String> names = tableNames(root);
        if (!names.contains("t")) {
            join(root.admin().createTable(TableDescriptor.of("t", "f", "g")));
        } else {
            if (join(root.admin().isTableDisabled("t"))) {
                join(root.admin().enableTable("t"));
            }
            if (join(root.admin().describeTable("t")).families().size() != 2) {
                join(root.admin().modifyTable(TableDescriptor.of("t", "f", "g")));
            }
        }
        if (!names.contains("u")) {
            join(root.admin().createTable(TableDescriptor.of("u", "f")));
        }
        for (String row : List.of("r1", "r2", "r3")) {
            rootPut(root, "t", row);
        }
        for (String row : List.of("r1", "r2")) {
            join(root.table("u").put(new Put(b(row)).addColumn(F, Q, V)));
        }
    }

    /** The rows resetFixtures writes (r1, r2, ...); the writes of the cases go to rows of other names. */
    private static Scan fixtureRows() {
        return new Scan().setStartStopRowForPrefixScan(b("r"));
    }

    private static void rootPut(Connection root, String table, String row) {
        join(root.table(table).put(new Put(b(row)).addColumn(F, Q, V).addColumn(G, Q, V)));
    }

    private static Result rootGet(Connection root, String table, String row) {
        return join(root.table(table).get(Get.of(row)));
    }

    private static void assertAbsent(Ctx c, String table, String row) {
        assertThat(rootGet(c.root(), table, row).cells()).as("cells of row " + row + " of " + table).isEmpty();
    }

    /** The actor's grants are what the case gave it: a refused write to the system table granted nothing. */
    private static void assertOwnGrantsIntact(Ctx c) {
        assertThat(join(c.root().admin().permissions(c.actorName(), null))).containsExactlyInAnyOrderElementsOf(c.rules().own());
        c.acl().reload();
        assertThat(join(c.root().admin().permissions(c.actorName(), null))).containsExactlyInAnyOrderElementsOf(c.rules().own());
    }

    private static void restoreOwn(Ctx c) {
        revokeAll(c.root(), c.actorName());
        for (Permission p : c.rules().own()) {
            join(c.root().admin().grant(p));
        }
    }

    private static void revokeAll(Connection root, String user) {
        for (Permission p : join(root.admin().permissions(user, null))) {
            join(root.admin().revoke(p));
        }
    }

    private static void removeUserIfThere(Connection root, String user) {
        if (join(root.admin().listUsers()).contains(user)) {
            join(root.admin().removeUser(user));
        }
    }

    private static void dropIfThere(Connection root, String table) {
        try {
            join(root.admin().dropTable(table));
        } catch (TableNotFoundException e) {
            // dropped by the case, or never made
        }
    }

    private static Set<String> tableNames(Connection c) {
        return join(c.admin().listTables()).stream().map(TableDescriptor::name).collect(Collectors.toSet());
    }

    private static Set<String> familiesOf(Result r) {
        Set<String> families = new TreeSet<>();
        for (Cell cell : r.cells()) {
            families.add(new String(cell.familyBytes(), StandardCharsets.UTF_8));
        }
        return families;
    }

    /** Opens a scanner and reads it to the end: the rows it gave. */
    private static int iterate(io.basalt.client.AsyncTable table, Scan scan) {
        int rows = 0;
        try (ResultScanner scanner = table.scanner(scan)) {
            for (Result ignored : scanner) {
                rows++;
            }
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object v) {
        return (List<String>) v;
    }

    @SuppressWarnings("unchecked")
    private static List<Permission> permissions(Object v) {
        return (List<Permission>) v;
    }

    private static CompletableFuture<Void> allOf(List<CompletableFuture<Object>> futures) {
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
    }

    /** Not supported here (clusterStatus of a single store): an IllegalArgumentException, or its network form. */
    private static boolean isIllegalArgument(Throwable t) {
        return t instanceof IllegalArgumentException || t instanceof BasaltException && t.getCause() instanceof IllegalArgumentException;
    }

    private static Object await(Object value) throws Exception {
        return value instanceof CompletableFuture<?> f ? f.get(30, TimeUnit.SECONDS) : value;
    }

    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable t = unwrap(e);
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("timed out", e);
        }
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String abbreviate(Object value) {
        String s = String.valueOf(value);
        return s.length() > 120 ? s.substring(0, 120) + "..." : s;
    }

    private static char[] password(String user) {
        return PASSWORDS.getOrDefault(user, "a-password-" + user).toCharArray();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
