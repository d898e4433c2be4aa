package io.basalt.client.security;

import io.basalt.cell.Cell;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.filter.CompareOperator;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Query;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableNotFoundException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Users, their credentials and their grants, kept in the store itself, and the decisions made
 * from them: which operation needs which {@link Action} where, and whether a user holds it.
 *
 * <h2>Where they live</h2>
 * In the table {@value #TABLE} of the store being protected, one family {@code a}: the row
 * {@code u:USER} holds the user's {@link Scram.Credential} (never a password), the row
 * {@code g:USER} one column per scope the user was granted something at ({@code @} global,
 * {@code t:TABLE}, {@code t:TABLE:FAMILY}) whose value is the letters. So users and grants get the
 * store's durability, recovery and (in a cluster) replication with no format of their own. The
 * table is made by the first user or grant; a store that never uses security never has it.
 *
 * <h2>Deciding</h2>
 * Decisions read an immutable snapshot of the table ({@link Snapshot}): a request costs a map
 * lookup and a walk over the user's few grants, no I/O. The snapshot is read again after every
 * change made through this object and every {@code refresh} (another node of a cluster, or a tool
 * that changed the table, is seen within that time). A user named in {@code superusers} holds
 * every action everywhere, whatever the table says, so a store can always be administered.
 *
 * <h2>Failing closed</h2>
 * Anything not granted is refused. A read or write that names no column family (a whole-row get,
 * a delete of a row) needs the action on the whole table; one that names families needs it on each.
 * Unlike HBase, which drops the cells of families the user may not read and answers with the
 * rest, a read touching a family the user may not read is refused with an error: a result never
 * silently lacks cells. The table {@value #TABLE} itself is never read or written through a
 * guarded connection, by anyone: it is reached only through the user and grant operations.
 */
public final class AccessControl implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(AccessControl.class.getName());

    /** The table holding users and grants. */
    public static final String TABLE = "_basalt_acl";
    private static final byte[] FAMILY = {'a'};
    private static final byte[] CREDENTIAL = bytes("credential");
    private static final String GLOBAL_SCOPE = "@";

    private final Connection store;
    private final Set<String> superusers;
    private static final SecureRandom RANDOM = new SecureRandom();
    private final ScheduledExecutorService refresher;
    private volatile Snapshot snapshot = Snapshot.EMPTY;
    /** Whether the table was read once: before, nobody can authenticate and only superusers are allowed anything. */
    private volatile boolean loaded;

    private AccessControl(Connection store, Set<String> superusers, Duration refresh, boolean background) {
        this.store = store;
        this.superusers = Set.copyOf(superusers);
        for (String s : this.superusers) {
            Permission.checkUser(s);
        }
        if (!background) {
            reload();
        }
        if (refresh.isZero()) {
            refresher = null;
        } else {
            refresher = Executors.newSingleThreadScheduledExecutor(
                    r -> Thread.ofPlatform().name("basalt-acl-refresh").daemon().unstarted(r));
            // in the background, the first read is tried every half second until it succeeds
            long tick = background ? Math.min(refresh.toMillis(), FIRST_READ_RETRY_MILLIS) : refresh.toMillis();
            refreshNanos = refresh.toNanos();
            refresher.scheduleWithFixedDelay(this::refresh, background ? 0 : tick, tick, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Decides over {@code store}'s users and grants, read again every {@code refresh} (zero: only
     * after changes made here). {@code superusers} hold every permission. The store stays the
     * caller's to close.
     */
    public static AccessControl over(Connection store, Set<String> superusers, Duration refresh) {
        return new AccessControl(store, superusers, refresh, false);
    }

    /**
     * As {@link #over}, for a store that may not answer yet (a cluster node starting while its
     * cluster elects leaders): the table is first read in the background, and read again every
     * {@code refresh} (which must be positive). Until the first read succeeds ({@link #loaded()})
     * the decisions fail closed: no user is known, so nobody can authenticate.
     */
    public static AccessControl eventually(Connection store, Set<String> superusers, Duration refresh) {
        if (refresh.isZero() || refresh.isNegative()) {
            throw new IllegalArgumentException("reading users in the background needs a positive refresh, not " + refresh);
        }
        return new AccessControl(store, superusers, refresh, true);
    }

    /** Whether users and grants were read at least once. */
    public boolean loaded() {
        return loaded;
    }

    /** A connection through which {@code user} reaches the store, each operation checked. */
    public Connection as(String user) {
        return new GuardedConnection(this, store, Permission.checkUser(user));
    }

    /** {@code table} (of the store), each operation checked for {@code user}. */
    public io.basalt.client.AsyncTable guard(String user, io.basalt.client.AsyncTable table) {
        return new GuardedConnection.GuardedTable(this, Permission.checkUser(user), table);
    }

    /** The credential of {@code user}, or null when there is no such user: what SCRAM's server side looks up. */
    public Scram.Credential credential(String user) {
        return snapshot.users.get(user);
    }

    /** Reads the table again now. */
    public void reload() {
        snapshot = load();
        loaded = true;
    }

    private static final long FIRST_READ_RETRY_MILLIS = 500;
    private boolean toldNotYet;
    private long refreshNanos;
    private long lastRead;

    private void refresh() {
        if (loaded && System.nanoTime() - lastRead < refreshNanos - TimeUnit.MILLISECONDS.toNanos(50)) {
            return; // ticking fast for the first read only
        }
        try {
            reload();
            lastRead = System.nanoTime();
        } catch (RuntimeException e) {
            if (loaded) {
                LOG.log(System.Logger.Level.WARNING, "Could not read users and grants again; deciding on those read"
                        + " before: " + e);
            } else if (!toldNotYet) {
                toldNotYet = true; // a cluster still starting: said once, tried again every refresh
                LOG.log(System.Logger.Level.INFO, "Users and grants cannot be read yet (nobody can authenticate"
                        + " until they are): " + e);
            }
        }
    }

    // ------------------------------------------------------------------ decisions

    /** Whether {@code user} holds {@code action} on {@code table}'s {@code family} (null: the table; both null: globally). */
    public boolean allows(String user, Action action, String table, String family) {
        if (superusers.contains(user)) {
            return true;
        }
        for (Permission p : snapshot.grants.getOrDefault(user, List.of())) {
            if (p.allows(action, table, family) || action == Action.CREATE && p.allows(Action.ADMIN, table, family)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code user} holds R, W, C or A on {@code table}, one of its families, or globally:
     * it may see that the table exists. X alone allows nothing, this included.
     */
    public boolean sees(String user, String table) {
        if (TABLE.equals(table)) {
            return false;
        }
        if (superusers.contains(user)) {
            return true;
        }
        for (Permission p : snapshot.grants.getOrDefault(user, List.of())) {
            if ((p.table() == null || p.table().equals(table)) && !p.actions().equals(Set.of(Action.EXEC))) {
                return true;
            }
        }
        return false;
    }

    /** Refuses unless {@code user} holds {@code action} globally. */
    public void checkGlobal(String user, Action action, String what) {
        if (!allows(user, action, null, null)) {
            throw denied(user, what, action, "globally", "");
        }
    }

    /** Refuses unless {@code user} holds {@code action} on the whole of {@code table} (or globally). */
    public void checkTable(String user, Action action, String table, String what) {
        system(table, what);
        if (!allows(user, action, table, null)) {
            throw denied(user, what, action, "on table '" + table + "'", ", '" + table + "'");
        }
    }

    /** Refuses unless {@code user} may see {@code table} (any permission on it). */
    public void checkSees(String user, String table, String what) {
        system(table, what);
        if (!sees(user, table)) {
            throw new AccessDeniedException("user '" + user + "' may not " + what + " table '" + table
                    + "': it holds no permission on it (grant R, W, C or A on '" + table + "')");
        }
    }

    /** Refuses unless {@code user} may read what {@code query} selects of {@code table}. */
    public void checkRead(String user, String table, Query<?> query, String what) {
        system(table, what);
        if (query.columns().isEmpty() || query.filter() != null && !allows(user, Action.READ, table, null)) {
            if (!allows(user, Action.READ, table, null)) {
                throw denied(user, what, Action.READ, "on table '" + table + "'" + (query.columns().isEmpty()
                        ? " (it selects every family; name the families it may read to read fewer)" : " (it has a filter)"),
                        ", '" + table + "'");
            }
            return;
        }
        for (byte[] family : query.columns().keySet()) {
            checkFamily(user, Action.READ, table, text(family), what);
        }
    }

    /** Refuses unless {@code user} may write every family {@code m} touches (a whole-row delete: the table). */
    public void checkWrite(String user, String table, Mutation m, String what) {
        system(table, what);
        Set<String> families = families(m);
        if (families.isEmpty()) {
            if (!allows(user, Action.WRITE, table, null)) {
                throw denied(user, what, Action.WRITE, "on table '" + table + "' (it deletes whole rows)", ", '" + table + "'");
            }
            return;
        }
        for (String family : families) {
            checkFamily(user, Action.WRITE, table, family, what);
        }
    }

    /** A check-and-mutate: read where its condition looks, write where its mutations go. */
    public void checkCheckAndMutate(String user, String table, CheckAndMutate check, String what) {
        system(table, what);
        if (check.filter() != null) {
            if (!allows(user, Action.READ, table, null)) {
                throw denied(user, what, Action.READ, "on table '" + table + "' (its condition is a filter)", ", '" + table + "'");
            }
        } else if (check.family() != null) {
            checkFamily(user, Action.READ, table, text(check.family()), what);
        }
        for (Mutation m : check.mutations()) {
            checkWrite(user, table, m, what);
        }
    }

    private void checkFamily(String user, Action action, String table, String family, String what) {
        if (!allows(user, action, table, family)) {
            throw denied(user, what, action, "on family '" + table + ":" + family + "'", ", '" + table + "', '" + family + "'");
        }
    }

    private static void system(String table, String what) {
        if (TABLE.equals(table)) {
            throw new AccessDeniedException("table '" + TABLE + "' holds the users and grants and is never read or written"
                    + " directly (" + what + "); use the user and grant commands");
        }
    }

    private static AccessDeniedException denied(String user, String what, Action action, String where, String grantArgs) {
        return new AccessDeniedException("user '" + user + "' may not " + what + ": it needs " + action.letter() + " ("
                + action.name().toLowerCase(java.util.Locale.ROOT) + ") " + where + "; an admin can grant it with grant '"
                + user + "', '" + action.letter() + "'" + grantArgs);
    }

    private static Set<String> families(Mutation m) {
        Set<String> families = new LinkedHashSet<>();
        for (Cell c : m.cells()) {
            byte[] f = c.familyBytes();
            if (f.length == 0) {
                return Set.of();
            }
            families.add(text(f));
        }
        return families;
    }

    // ------------------------------------------------------------------ users and grants (unchecked)

    /**
     * The credential the store keeps for {@code password} (a fresh salt each time). Clients make
     * it themselves, so a password never travels to the server.
     */
    public static Scram.Credential credential(char[] password) {
        checkPassword(password);
        return Scram.Credential.of(password, Scram.DEFAULT_ITERATIONS, RANDOM);
    }

    /** Refuses unless {@code actor} may add, remove or list users, or set {@code user}'s password ({@code self} allowed). */
    public void checkUsers(String actor, String user, boolean selfAllowed, String what) {
        if (!(selfAllowed && actor.equals(user))) {
            checkGlobal(actor, Action.ADMIN, what);
        }
    }

    /** Refuses unless {@code actor} holds A where {@code p} grants (its table, or globally). */
    public void checkGrant(String actor, Permission p, String verb) {
        String what = verb + " " + Action.letters(p.actions()) + " at " + p.scope() + " for user '" + p.user() + "'";
        if (p.table() == null) {
            checkGlobal(actor, Action.ADMIN, what);
        } else {
            checkTable(actor, Action.ADMIN, p.table(), what);
        }
    }

    /** Refuses unless {@code actor} may list the grants of {@code user} on {@code table} (nulls: all). */
    public void checkPermissions(String actor, String user, String table) {
        if (actor.equals(user) || allows(actor, Action.ADMIN, null, null)) {
            return;
        }
        if (table == null) {
            checkGlobal(actor, Action.ADMIN, "list " + (user == null ? "every user's" : "user '" + user + "''s") + " permissions");
        }
        checkTable(actor, Action.ADMIN, table, "list the permissions on table '" + table + "'");
    }

    /** Adds {@code user} with {@code credential}; fails if the user exists. */
    public void addUser(String user, Scram.Credential credential) {
        Permission.checkUser(user);
        ensureTable();
        boolean added = join(store.table(TABLE).checkAndMutate(CheckAndMutate.onRow(userRow(user))
                .ifAbsent(FAMILY, CREDENTIAL).then(new Put(userRow(user)).addColumn(FAMILY, CREDENTIAL,
                        bytes(credential.encode())))));
        reload();
        if (!added) {
            throw new IllegalArgumentException("user '" + user + "' exists; change the password with passwd");
        }
    }

    /** Sets {@code user}'s credential (a new password); fails if there is no such user. */
    public void changePassword(String user, Scram.Credential credential) {
        Scram.Credential old = storedCredential(user);
        boolean changed = join(store.table(TABLE).checkAndMutate(CheckAndMutate.onRow(userRow(user))
                .ifMatches(FAMILY, CREDENTIAL, CompareOperator.EQUAL, bytes(old.encode()))
                .then(new Put(userRow(user)).addColumn(FAMILY, CREDENTIAL, bytes(credential.encode())))));
        reload();
        if (!changed) {
            throw new IllegalArgumentException("user '" + user + "' changed or was removed meanwhile; try again");
        }
    }

    /** Removes {@code user} and every grant to it; fails if there is no such user. */
    public void removeUser(String user) {
        storedCredential(user);
        join(store.table(TABLE).delete(new Delete(userRow(user))));
        join(store.table(TABLE).delete(new Delete(grantRow(user))));
        reload();
    }

    /**
     * Forgets every grant on {@code table} and its families (it was dropped), as HBase does: a
     * table made later under the same name starts with no grants. Nothing to do when no grant
     * was ever made.
     */
    public void forgetTable(String table) {
        Snapshot current = load();
        List<Delete> deletes = new ArrayList<>();
        for (List<Permission> ps : current.grants.values()) {
            for (Permission p : ps) {
                if (table.equals(p.table())) {
                    deletes.add(new Delete(grantRow(p.user())).addColumns(FAMILY, bytes(scope(p))));
                }
            }
        }
        for (Delete d : deletes) {
            join(store.table(TABLE).delete(d));
        }
        snapshot = deletes.isEmpty() ? current : load();
    }

    /** The users, sorted. */
    public List<String> users() {
        return snapshot.users.keySet().stream().sorted().toList();
    }

    /**
     * Sets {@code p.user()}'s actions at {@code p}'s scope to {@code p.actions()} (as HBase's grant
     * does: what was granted there before is replaced).
     */
    public void grant(Permission p) {
        if (p.table() != null) {
            system(p.table(), "grant on");
        }
        ensureTable();
        join(store.table(TABLE).put(new Put(grantRow(p.user())).addColumn(FAMILY, bytes(scope(p)),
                bytes(Action.letters(p.actions())))));
        reload();
    }

    /**
     * Takes {@code p.actions()} away from {@code p.user()} at {@code p}'s scope (not at others):
     * the scope keeps what remains, or goes when nothing does. Fails naming the scope when the
     * user holds nothing there.
     */
    public void revoke(Permission p) {
        Permission held = load().grants.getOrDefault(p.user(), List.of()).stream()
                .filter(g -> java.util.Objects.equals(g.table(), p.table()) && java.util.Objects.equals(g.family(), p.family()))
                .findFirst().orElseThrow(() -> new IllegalArgumentException("user '" + p.user() + "' holds nothing at "
                        + p.scope() + " to revoke" + (p.table() == null ? "" : " (a grant at a wider scope is revoked there)")));
        EnumSet<Action> left = EnumSet.copyOf(held.actions());
        left.removeAll(p.actions());
        byte[] column = bytes(scope(p));
        if (left.isEmpty()) {
            join(store.table(TABLE).delete(new Delete(grantRow(p.user())).addColumns(FAMILY, column)));
        } else {
            join(store.table(TABLE).put(new Put(grantRow(p.user())).addColumn(FAMILY, column, bytes(Action.letters(left)))));
        }
        reload();
    }

    /**
     * The grants, of {@code user} only when not null, on {@code table} (or its families) only when
     * not null; global grants are listed only without a table (a table's admin sees that table's).
     */
    public List<Permission> permissions(String user, String table) {
        List<Permission> out = new ArrayList<>();
        for (List<Permission> ps : snapshot.grants.values()) {
            for (Permission p : ps) {
                if ((user == null || p.user().equals(user)) && (table == null || table.equals(p.table()))) {
                    out.add(p);
                }
            }
        }
        out.sort(Comparator.comparing(Permission::user).thenComparing(p -> p.table() == null ? "" : p.table())
                .thenComparing(p -> p.family() == null ? "" : p.family()));
        return out;
    }

    /** Whether {@code user} is named a superuser in the configuration. */
    public boolean superuser(String user) {
        return superusers.contains(user);
    }

    private Scram.Credential storedCredential(String user) {
        Permission.checkUser(user);
        Scram.Credential c = load().users.get(user);
        if (c == null) {
            throw new IllegalArgumentException("there is no user '" + user + "'" + (superusers.contains(user)
                    ? " (it is a superuser by configuration, but has no password yet: add it)" : ""));
        }
        return c;
    }

    private static void checkPassword(char[] password) {
        if (password == null || password.length < 8) {
            throw new IllegalArgumentException("a password must have at least 8 characters");
        }
        if (password.length > 1024) {
            throw new IllegalArgumentException("a password may have at most 1024 characters");
        }
    }

    private void ensureTable() {
        try {
            join(store.admin().describeTable(TABLE));
        } catch (TableNotFoundException e) {
            try {
                join(store.admin().createTable(TableDescriptor.of(TABLE, "a")));
            } catch (io.basalt.client.TableExistsException raced) {
                // made meanwhile by another change
            }
        }
    }

    // ------------------------------------------------------------------ the table

    private Snapshot load() {
        List<Result> rows;
        try {
            rows = join(store.table(TABLE).scanAll(new Scan()));
        } catch (TableNotFoundException e) {
            return Snapshot.EMPTY;
        }
        Map<String, Scram.Credential> users = new HashMap<>();
        Map<String, List<Permission>> grants = new HashMap<>();
        for (Result r : rows) {
            String row = text(r.row());
            for (Cell c : r.cells()) {
                String column = text(c.qualifierBytes());
                String value = text(c.valueBytes());
                try {
                    if (row.startsWith("u:") && column.equals("credential")) {
                        users.put(row.substring(2), Scram.Credential.decode(value));
                    } else if (row.startsWith("g:")) {
                        grants.computeIfAbsent(row.substring(2), _ -> new ArrayList<>())
                                .add(permission(row.substring(2), column, Action.parse(value)));
                    } else {
                        LOG.log(System.Logger.Level.WARNING, "Ignoring an unknown entry in " + TABLE + ": row " + row + " column " + column);
                    }
                } catch (IllegalArgumentException e) {
                    // fail closed: a grant that does not read grants nothing; a credential that does not read lets nobody in
                    LOG.log(System.Logger.Level.WARNING, "Ignoring an entry of " + TABLE + " that does not read (row " + row
                            + ", column " + column + "): " + e.getMessage());
                }
            }
        }
        grants.replaceAll((_, v) -> List.copyOf(v));
        return new Snapshot(Map.copyOf(users), Map.copyOf(grants));
    }

    private static Permission permission(String user, String scope, Set<Action> actions) {
        if (scope.equals(GLOBAL_SCOPE)) {
            return Permission.global(user, actions);
        }
        if (!scope.startsWith("t:")) {
            throw new IllegalArgumentException("unknown scope '" + scope + "'");
        }
        String rest = scope.substring(2);
        int colon = rest.indexOf(':');
        return colon < 0 ? Permission.onTable(user, rest, actions)
                : Permission.onFamily(user, rest.substring(0, colon), rest.substring(colon + 1), actions);
    }

    private static String scope(Permission p) {
        return p.table() == null ? GLOBAL_SCOPE : "t:" + p.table() + (p.family() == null ? "" : ":" + p.family());
    }

    private static byte[] userRow(String user) {
        return bytes("u:" + user);
    }

    private static byte[] grantRow(String user) {
        return bytes("g:" + user);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    static <T> T join(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.basalt.client.BasaltException("interrupted while reading or changing users and grants", e);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t instanceof RuntimeException r ? r : new io.basalt.client.BasaltException(t.toString(), t);
    }

    @Override
    public void close() {
        if (refresher != null) {
            refresher.shutdownNow();
        }
    }

    /** One reading of the table. */
    private record Snapshot(Map<String, Scram.Credential> users, Map<String, List<Permission>> grants) {
        static final Snapshot EMPTY = new Snapshot(Map.of(), Map.of());
    }
}
