package io.basalt.cli.shell;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.client.AsyncTable;
import io.basalt.client.BasaltException;
import io.basalt.client.ClusterInfo;
import io.basalt.client.ServerStatus;
import io.basalt.client.Compression;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.filter.Filter;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TimeRange;
import io.basalt.cli.shell.ShellSyntax.Command;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The Basalt shell: HBase shell commands ({@code create}, {@code put}, {@code get}, {@code scan}, ...)
 * run against a {@link Connection}, with HBase's output layout so HBase users feel at home.
 * Errors print one line, {@code ERROR: ...}, never a stack trace.
 */
public final class Shell {

    /** How a command ended, for the exit code of a non-interactive run. */
    public enum Outcome { OK, ERROR, EXIT }

    private final Connection connection;
    private final PrintStream out;

    /** The user the connection authenticated as, or null (embedded, or a server without authentication). */
    private final String user;

    public Shell(Connection connection, PrintStream out) {
        this(connection, out, null);
    }

    public Shell(Connection connection, PrintStream out, String user) {
        this.connection = connection;
        this.out = out;
        this.user = user;
    }

    /** Runs every command in {@code input}; stops at {@code exit}. Returns ERROR if any failed. */
    public Outcome run(String input) {
        List<Command> commands;
        try {
            commands = ShellSyntax.parse(input);
        } catch (ShellSyntax.SyntaxError e) {
            out.println("ERROR: syntax: " + e.getMessage());
            return Outcome.ERROR;
        }
        Outcome result = Outcome.OK;
        for (Command command : commands) {
            Outcome outcome = execute(command);
            if (outcome == Outcome.EXIT) {
                return Outcome.EXIT;
            }
            if (outcome == Outcome.ERROR) {
                result = Outcome.ERROR;
            }
        }
        return result;
    }

    /** True when more lines are needed to finish the input (an open quote or bracket). */
    public static boolean incomplete(String input) {
        return ShellSyntax.incomplete(input);
    }

    private Outcome execute(Command command) {
        long start = System.nanoTime();
        try {
            switch (command.name()) {
                case "exit", "quit" -> {
                    return Outcome.EXIT;
                }
                case "help" -> help();
                case "version" -> out.println("Basalt shell; see ./basalt version");
                case "create" -> create(command.args());
                case "alter" -> alter(command.args());
                case "alter_status" -> {
                    String table = name(command.args(), 0, "table");
                    await(connection.admin().describeTable(table));
                    out.println("All regions of " + table + " have the current schema (alter completes before it returns).");
                }
                case "list" -> list(command.args());
                case "describe", "desc" -> describe(name(command.args(), 0, "table"));
                case "disable" -> await(connection.admin().disableTable(name(command.args(), 0, "table")));
                case "enable" -> await(connection.admin().enableTable(name(command.args(), 0, "table")));
                case "is_disabled", "is_enabled" -> {
                    boolean disabled = await(connection.admin().isTableDisabled(name(command.args(), 0, "table")));
                    out.println(command.name().equals("is_disabled") == disabled);
                }
                case "exists" -> {
                    String table = name(command.args(), 0, "table");
                    boolean exists = await(connection.admin().listTables()).stream().anyMatch(t -> t.name().equals(table));
                    out.println("Table " + table + " " + (exists ? "does exist" : "does not exist"));
                }
                case "drop" -> {
                    await(connection.admin().dropTable(name(command.args(), 0, "table")));
                }
                case "truncate", "truncate_preserve" -> {
                    String table = name(command.args(), 0, "table");
                    boolean preserve = command.name().equals("truncate_preserve");
                    out.println("Truncating '" + table + "' table" + (preserve ? ", keeping its region boundaries" : ""));
                    await(connection.admin().truncateTable(table, preserve));
                }
                case "put" -> put(command.args());
                case "get" -> get(command.args());
                case "delete" -> delete(command.args(), false);
                case "deleteall" -> delete(command.args(), true);
                case "incr" -> incr(command.args());
                case "get_counter" -> getCounter(command.args());
                case "append" -> append(command.args());
                case "scan" -> scan(command.args());
                case "count" -> count(command.args());
                case "show_filters" -> showFilters();
                case "flush" -> await(connection.admin().flush(name(command.args(), 0, "table")));
                case "compact", "major_compact" -> await(connection.admin().compact(name(command.args(), 0, "table")));
                case "list_regions" -> listRegions(name(command.args(), 0, "table"));
                case "status" -> status(command.args());
                case "locate_region" -> locateRegion(command.args());
                case "split" -> split(command.args());
                case "merge_region" -> mergeRegion(command.args());
                case "grant" -> grant(command.args());
                case "revoke" -> revoke(command.args());
                case "user_permission" -> userPermission(command.args());
                case "whoami" -> out.println(user != null ? user : connection instanceof io.basalt.client.net.RemoteConnection
                        ? "(no user given: the server knows this client by its certificate, or not at all)"
                        : "(embedded: whoever opened the store's files; no checks)");
                default -> {
                    String instead = UNSUPPORTED.get(command.name());
                    throw new UsageError(instead != null ? command.name() + " is not supported by Basalt; " + instead
                            : "unknown command '" + command.name() + "'; type help for the list");
                }
            }
        } catch (UsageError | ShellSyntax.SyntaxError | BasaltException | IllegalArgumentException
                 | IllegalStateException | java.io.UncheckedIOException e) {
            out.println("ERROR: " + e.getMessage());
            return Outcome.ERROR;
        }
        out.printf(Locale.ROOT, "Took %.4f seconds%n", (System.nanoTime() - start) / 1e9);
        return Outcome.OK;
    }

    /** A command used wrongly; the message says how to use it. */
    private static final class UsageError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageError(String message) {
            super(message);
        }
    }

    /** HBase shell commands Basalt does not have, and what to do instead. */
    private static final Map<String, String> UNSUPPORTED = Map.ofEntries(
            Map.entry("snapshot", "copy a store with its checkpoint (docs/storage.md, Checkpoints)"),
            Map.entry("clone_snapshot", "open a checkpoint copy as a store of its own"),
            Map.entry("restore_snapshot", "open a checkpoint copy as a store of its own"),
            Map.entry("list_snapshots", "checkpoints are directories; list them with ls"),
            Map.entry("delete_snapshot", "checkpoints are directories; remove one with rm -r"),
            Map.entry("create_namespace", "table names carry no namespace; use a prefix such as 'app.t'"),
            Map.entry("list_namespace", "table names carry no namespace; list 'app\\..*' lists a prefix"),
            Map.entry("drop_namespace", "table names carry no namespace"),
            Map.entry("describe_namespace", "table names carry no namespace"),
            Map.entry("balancer", "regions of one server need no balancing; a cluster places replicas itself"),
            Map.entry("balance_switch", "regions of one server need no balancing; a cluster places replicas itself"),
            Map.entry("move", "a cluster places replicas itself; status shows where"),
            Map.entry("assign", "regions are always open on their node"),
            Map.entry("unassign", "regions are always open on their node"),
            Map.entry("close_region", "regions are always open on their node"),
            Map.entry("hbck", "a store checks its files by checksum when it opens them"),
            Map.entry("add_peer", "cross-cluster replication is not built; a cluster replicates each region itself"),
            Map.entry("list_peers", "cross-cluster replication is not built"),
            Map.entry("set_quota", "quotas are not built"),
            Map.entry("list_quotas", "quotas are not built"),
            Map.entry("alter_async", "alter changes every region before it returns"),
            Map.entry("wal_roll", "the log rolls by itself as tables flush"),
            Map.entry("processlist", "not built yet (issue 22: operations)"),
            Map.entry("compact_rs", "compact 't' compacts a table's regions"),
            Map.entry("major_compact_rs", "compact 't' compacts a table's regions"),
            Map.entry("get_table", "use the table's name in each command"),
            Map.entry("disable_all", "disable each table; list 'regex' names them"),
            Map.entry("enable_all", "enable each table; list 'regex' names them"),
            Map.entry("drop_all", "drop each table; list 'regex' names them"));

    private void help() {
        out.println("""
                Basalt shell commands (HBase shell syntax):
                  create 't', 'f1', 'f2'                      create a table (or {NAME => 'f', VERSIONS => 3, TTL => 60,
                                                               BLOOMFILTER => 'NONE', BLOCKSIZE => 16384, COMPRESSION => 'LZ4',
                                                               BLOOM_BITS_PER_KEY => 16})
                  create 't', 'f', SPLITS => ['g', 'n']       pre-split into regions [,g) [g,n) [n,); or
                                                               {NUMREGIONS => 16, SPLITALGO => 'HexStringSplit' | 'UniformSplit'}
                  list                                        list tables
                  describe 't'                                show a table's families and options
                  alter 't', NAME => 'f', VERSIONS => 5       add or change a family (options left out stay);
                                                               alter 't', 'f2'; alter 't', 'delete' => 'f' (drops its data)
                  drop 't'                                    drop a table and its data (disabling it first is not needed)
                  disable 't' / enable 't'                    refuse / allow reads and writes of a table; is_disabled 't'
                  truncate 't' / truncate_preserve 't'        delete every row (truncate_preserve keeps the regions)
                  put 't', 'row', 'f:q', 'value' [, ts]       write one cell
                  get 't', 'row' [, 'f:q' | {COLUMN => ['f:q'], VERSIONS => n, TIMERANGE => [min, max], FILTER => "..."}]
                  delete 't', 'row', 'f:q' [, ts]             delete a column's versions at or below ts (default: all)
                  deleteall 't', 'row' [, 'f:q']              delete a whole row (or a column)
                  incr 't', 'row', 'f:q' [, n]                add n (default 1) to a counter
                  get_counter 't', 'row', 'f:q'               a counter's value
                  append 't', 'row', 'f:q', 'value'           add bytes to the end of a column's value
                  scan 't' [, {LIMIT => n, STARTROW => 'a', STOPROW => 'b', COLUMNS => ['f:q'],
                               REVERSED => true, VERSIONS => n, TIMERANGE => [min, max],
                               ROWPREFIXFILTER => 'u', FILTER => "PrefixFilter('u') AND ValueFilter(=, 'binary:x')",
                               RAW => true (delete markers and the cells they mask, until compaction)}]
                  show_filters                                the filters FILTER => "..." can name
                  count 't'                                   count rows (of a table, or of one region by name)
                  flush 't' / compact 't'                     write memory to disk / merge files (a table, or one region by name)
                  list_regions 't'                            a table's regions: name, start, end, size, files, memtable
                  status [, 'detailed']                       the store: memory, files, requests (detailed: each region);
                                                               a cluster's nodes and regions: leaders, replicas, lag
                                                               (detailed: and the replicas of the node the shell is on)
                  locate_region 't', 'row'                    the region holding a row
                  split 't' [, 'row']                         split the region holding row at row (or every region at its middle)
                  merge_region 'region1', 'region2'           merge two neighbouring regions (names from list_regions)
                  grant 'bob', 'RW' [, 't' [, 'f']]           set what bob may do globally, on a table or on a family:
                                                               R read, W write, X exec, C create, A admin (replaces
                                                               what bob held at that scope)
                  revoke 'bob' [, 't' [, 'f']]                take away everything bob holds at that scope
                  user_permission [, 't']                     the grants (on table t); whoami: who the shell is
                  help, exit
                Strings in double quotes take escapes such as "\\x00"; commands end with ; or a new line.""");
    }

    // ------------------------------------------------------------------ permissions

    /** {@code grant 'user', 'RWXCA' [, 'table' [, 'family']]} (a qualifier, as HBase allows, is refused). */
    private void grant(List<Object> args) {
        if (args.size() < 2 || args.size() > 4) {
            throw new UsageError(args.size() > 4 ? "Basalt grants down to column families, not qualifiers: grant 'user',"
                    + " 'RW', 't', 'f'" : "grant takes a user, permissions and optionally a table and a family:"
                    + " grant 'bob', 'RW', 't'");
        }
        String who = name(args, 0, "user");
        java.util.Set<io.basalt.client.security.Action> actions = io.basalt.client.security.Action.parse(
                name(args, 1, "permissions"));
        await(connection.admin().grant(new io.basalt.client.security.Permission(who,
                args.size() > 2 ? name(args, 2, "table") : null, args.size() > 3 ? name(args, 3, "family") : null,
                actions)));
    }

    /** {@code revoke 'user' [, 'table' [, 'family']]}: everything at that scope, as HBase's revoke. */
    private void revoke(List<Object> args) {
        if (args.isEmpty() || args.size() > 3) {
            throw new UsageError(args.size() > 3 ? "Basalt grants down to column families, not qualifiers: revoke 'user',"
                    + " 't', 'f'" : "revoke takes a user and optionally a table and a family: revoke 'bob', 't'");
        }
        String who = name(args, 0, "user");
        String table = args.size() > 1 ? name(args, 1, "table") : null;
        String family = args.size() > 2 ? name(args, 2, "family") : null;
        await(connection.admin().revoke(new io.basalt.client.security.Permission(who, table, family,
                io.basalt.client.security.Action.parse(family == null ? "RWXCA" : "RW"))));
    }

    /** {@code user_permission [, 'table']}: who holds what, everywhere or touching one table. */
    private void userPermission(List<Object> args) {
        String table = args.isEmpty() ? null : name(args, 0, "table");
        List<io.basalt.client.security.Permission> grants = await(connection.admin().permissions(null, table));
        List<String[]> lines = new ArrayList<>();
        for (io.basalt.client.security.Permission p : grants) {
            lines.add(new String[] {p.user(), p.table() == null ? "(global)" : p.table(),
                p.family() == null ? "" : p.family(), io.basalt.client.security.Action.letters(p.actions())});
        }
        table(new String[] {"USER", "TABLE", "FAMILY", "PERMISSIONS"}, lines);
        out.println(grants.size() + " row(s)");
    }

    // ------------------------------------------------------------------ arguments

    private static Object arg(List<Object> args, int i, String what) {
        if (i >= args.size()) {
            throw new UsageError("missing " + what + " (argument " + (i + 1) + ")");
        }
        return args.get(i);
    }

    private static byte[] bytes(List<Object> args, int i, String what) {
        Object value = arg(args, i, what);
        return switch (value) {
            case byte[] b -> b;
            case Long n -> Long.toString(n).getBytes(StandardCharsets.UTF_8);
            case null, default -> throw new UsageError(what + " must be a quoted string, not " + describeValue(value));
        };
    }

    private static String name(List<Object> args, int i, String what) {
        return new String(bytes(args, i, what), StandardCharsets.UTF_8);
    }

    private static long number(Object value, String what) {
        if (value instanceof Long n) {
            return n;
        }
        throw new UsageError(what + " must be a number, not " + describeValue(value));
    }

    private static String describeValue(Object value) {
        return switch (value) {
            case null -> "nil";
            case byte[] b -> "'" + Bytes.toStringBinary(b) + "'";
            case ShellSyntax.Constant c -> c.name();
            default -> value.toString();
        };
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> options(List<Object> args, int i) {
        if (i >= args.size()) {
            return Map.of();
        }
        if (args.get(i) instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        return null;
    }

    /** Splits {@code family:qualifier}; the qualifier may be empty or absent (family only). */
    private static byte[][] column(byte[] spec) {
        for (int i = 0; i < spec.length; i++) {
            if (spec[i] == ':') {
                return new byte[][] {java.util.Arrays.copyOf(spec, i), java.util.Arrays.copyOfRange(spec, i + 1, spec.length)};
            }
        }
        return new byte[][] {spec, null};
    }

    private static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BasaltException("interrupted");
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof RuntimeException runtime && !(cause instanceof CompletionException)) {
                throw runtime;
            }
            throw new BasaltException(cause.getMessage(), cause);
        }
    }

    // ------------------------------------------------------------------ commands

    /**
     * HBase's {@code alter}: each argument after the table adds or changes one family ({@code 'f'},
     * {@code NAME => 'f', VERSIONS => 5}: options it leaves out keep their values) or deletes one
     * ({@code NAME => 'f', METHOD => 'delete'}, {@code 'delete' => 'f'}); all of them apply in one
     * change of the table.
     */
    private void alter(List<Object> args) {
        String table = name(args, 0, "table");
        if (args.size() < 2) {
            throw new UsageError("alter needs a family: alter 't', NAME => 'f', VERSIONS => 5");
        }
        Map<String, FamilyDescriptor> families = new LinkedHashMap<>();
        for (FamilyDescriptor f : await(connection.admin().describeTable(table)).families()) {
            families.put(f.name(), f);
        }
        for (int i = 1; i < args.size(); i++) {
            Object spec = args.get(i);
            if (spec instanceof byte[] name) {
                String family = new String(name, StandardCharsets.UTF_8);
                families.putIfAbsent(family, FamilyDescriptor.of(family));
            } else if (spec instanceof Map<?, ?>) {
                Map<String, Object> options = options(args, i);
                if (options.get("DELETE") instanceof byte[] deleted) {
                    remove(families, table, new String(deleted, StandardCharsets.UTF_8));
                    continue;
                }
                for (String key : List.of("MAX_FILESIZE", "READONLY", "MEMSTORE_FLUSHSIZE", "DURABILITY",
                        "REGION_REPLICATION", "NORMALIZATION_ENABLED", "SPLIT_POLICY", "OWNER")) {
                    if (options.containsKey(key)) {
                        throw new UsageError("table attribute " + key + " is not supported by Basalt; alter changes"
                                + " column families (NAME, VERSIONS, TTL, BLOOMFILTER, BLOOM_BITS_PER_KEY, BLOCKSIZE,"
                                + " COMPRESSION)");
                    }
                }
                String name = familyName(options);
                Object method = options.get("METHOD");
                if (method != null && text(method).equalsIgnoreCase("delete")) {
                    remove(families, table, name);
                } else if (method != null) {
                    throw new UsageError("METHOD is 'delete' (to drop a family), not '" + text(method) + "'");
                } else {
                    families.put(name, family(families.getOrDefault(name, FamilyDescriptor.of(name)), options));
                }
            } else {
                throw new UsageError("alter takes 'family' or NAME => 'family', ..., not " + describeValue(spec));
            }
        }
        if (families.isEmpty()) {
            throw new UsageError("alter would leave table " + table + " without a column family; drop the table instead");
        }
        out.println("Updating all regions with the new schema...");
        await(connection.admin().modifyTable(new TableDescriptor(table, new ArrayList<>(families.values()))));
        out.println("Done.");
    }

    private static void remove(Map<String, FamilyDescriptor> families, String table, String family) {
        if (families.remove(family) == null) {
            throw new UsageError("table " + table + " has no column family '" + family + "'");
        }
    }

    private void create(List<Object> args) {
        String table = name(args, 0, "table name");
        if (args.size() < 2) {
            throw new UsageError("create needs at least one column family: create 't', 'f'");
        }
        List<FamilyDescriptor> families = new ArrayList<>();
        List<byte[]> splitKeys = List.of();
        for (int i = 1; i < args.size(); i++) {
            Object spec = args.get(i);
            if (spec instanceof byte[] name) {
                families.add(FamilyDescriptor.of(new String(name, StandardCharsets.UTF_8)));
            } else if (spec instanceof Map<?, ?> && options(args, i).containsKey("NAME")) {
                families.add(family(options(args, i)));
            } else if (spec instanceof Map<?, ?>) {
                splitKeys = splitKeys(options(args, i));
            } else {
                throw new UsageError("column family must be 'name' or {NAME => 'name', ...}, not " + describeValue(spec));
            }
        }
        if (families.isEmpty()) {
            throw new UsageError("create needs at least one column family: create 't', 'f'");
        }
        await(connection.admin().createTable(new TableDescriptor(table, families), splitKeys));
        out.println("Created table " + table + (splitKeys.isEmpty() ? "" : " with " + (splitKeys.size() + 1)
                + " regions"));
    }

    /** The split keys of a table-options hash: {@code SPLITS => [...]} or {@code NUMREGIONS} with {@code SPLITALGO}. */
    private static List<byte[]> splitKeys(Map<String, Object> options) {
        for (String key : options.keySet()) {
            if (!List.of("SPLITS", "NUMREGIONS", "SPLITALGO").contains(key)) {
                throw new UsageError("unknown table option " + key + " (known: SPLITS, NUMREGIONS, SPLITALGO; a family"
                        + " hash needs NAME => 'family')");
            }
        }
        if (options.containsKey("SPLITS")) {
            if (options.containsKey("NUMREGIONS") || options.containsKey("SPLITALGO")) {
                throw new UsageError("give either SPLITS or NUMREGIONS with SPLITALGO, not both");
            }
            if (!(options.get("SPLITS") instanceof List<?> list)) {
                throw new UsageError("SPLITS must be a list of row keys: SPLITS => ['g', 'n']");
            }
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                keys.add(bytes(new ArrayList<>(list), i, "split key"));
            }
            return keys;
        }
        if (!options.containsKey("NUMREGIONS") || !options.containsKey("SPLITALGO")) {
            throw new UsageError("NUMREGIONS and SPLITALGO go together: {NUMREGIONS => 16, SPLITALGO => 'HexStringSplit'}");
        }
        return io.basalt.client.SplitAlgorithm.byName(text(options.get("SPLITALGO")))
                .splitKeys(intish(options.get("NUMREGIONS"), "NUMREGIONS"));
    }

    private static FamilyDescriptor family(Map<String, Object> spec) {
        return family(FamilyDescriptor.of(familyName(spec)), spec);
    }

    private static String familyName(Map<String, Object> spec) {
        Object name = spec.get("NAME");
        if (!(name instanceof byte[] bytes)) {
            throw new UsageError("a family hash needs NAME => 'family'");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** {@code base} with the options of {@code spec} applied: what a spec leaves out stays as it was. */
    private static FamilyDescriptor family(FamilyDescriptor base, Map<String, Object> spec) {
        FamilyDescriptor family = base;
        for (var e : spec.entrySet()) {
            Object v = e.getValue();
            family = switch (e.getKey()) {
                case "NAME", "METHOD" -> family;
                case "VERSIONS" -> family.withMaxVersions(intish(v, "VERSIONS"));
                case "TTL" -> family.withTimeToLive(Duration.ofSeconds(numberish(v, "TTL")));
                case "BLOCKSIZE" -> family.withBlockSize(intish(v, "BLOCKSIZE"));
                case "BLOOMFILTER" -> family.withBloomFilter(!text(v).equalsIgnoreCase("NONE"));
                case "BLOOM_BITS_PER_KEY" -> family.withBloomBitsPerKey(intish(v, "BLOOM_BITS_PER_KEY"));
                case "COMPRESSION" -> family.withCompression(compression(text(v)));
                default -> throw new UsageError("unknown family option " + e.getKey()
                        + " (known: NAME, VERSIONS, TTL, BLOCKSIZE, BLOOMFILTER, BLOOM_BITS_PER_KEY, COMPRESSION)");
            };
        }
        return family;
    }

    /** {@link #numberish} that must fit an int: a larger number is refused, not cut to its low bits. */
    private static int intish(Object v, String what) {
        long n = numberish(v, what);
        if (n != (int) n) {
            throw new UsageError(what + " " + n + " is too large");
        }
        return (int) n;
    }

    private static long numberish(Object v, String what) {
        if (v instanceof byte[] b) {
            try {
                return Long.parseLong(new String(b, StandardCharsets.UTF_8).strip());
            } catch (NumberFormatException e) {
                throw new UsageError(what + " must be a number");
            }
        }
        return number(v, what);
    }

    /** {@code CONSISTENCY => 'TIMELINE'} (any replica, as it stands) or {@code 'STRONG'} (the default). */
    private static io.basalt.client.Consistency consistency(Object v) {
        String name = text(v).toUpperCase(Locale.ROOT);
        return switch (name) {
            case "STRONG" -> io.basalt.client.Consistency.STRONG;
            case "TIMELINE" -> io.basalt.client.Consistency.TIMELINE;
            default -> throw new UsageError("CONSISTENCY is 'STRONG' or 'TIMELINE', not '" + text(v) + "'");
        };
    }

    private static String text(Object v) {
        return switch (v) {
            case byte[] b -> new String(b, StandardCharsets.UTF_8);
            case ShellSyntax.Constant c -> c.name();
            case null, default -> String.valueOf(v);
        };
    }

    private static Compression compression(String name) {
        try {
            return Compression.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UsageError("COMPRESSION must be NONE or LZ4, not " + name);
        }
    }

    /** A time to live as HBase prints it: {@code 90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)}. */
    static String ttl(Duration ttl) {
        long seconds = ttl.toSeconds();
        StringBuilder parts = new StringBuilder();
        long[] sizes = {86_400, 3_600, 60, 1};
        String[] names = {"DAY", "HOUR", "MINUTE", "SECOND"};
        long left = seconds;
        for (int i = 0; i < sizes.length; i++) {
            long n = left / sizes[i];
            left %= sizes[i];
            if (n > 0) {
                parts.append(parts.isEmpty() ? "" : " ").append(n).append(' ').append(names[i]).append(n > 1 ? "S" : "");
            }
        }
        return seconds + " SECONDS (" + parts + ")";
    }

    private void list(List<Object> args) {
        List<TableDescriptor> tables = await(connection.admin().listTables());
        if (!args.isEmpty()) {
            java.util.regex.Pattern pattern;
            try {
                pattern = java.util.regex.Pattern.compile(text(args.getFirst()));
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new UsageError("list takes a regular expression: " + e.getDescription());
            }
            tables = tables.stream().filter(t -> pattern.matcher(t.name()).matches()).toList();
        }
        out.println("TABLE");
        tables.forEach(t -> out.println(t.name()));
        out.println(tables.size() + " row(s)");
    }

    private void describe(String table) {
        TableDescriptor descriptor = await(connection.admin().describeTable(table));
        boolean disabled = await(connection.admin().isTableDisabled(table));
        out.println("Table " + descriptor.name() + " is " + (disabled ? "DISABLED" : "ENABLED"));
        out.println(descriptor.name());
        out.println("COLUMN FAMILIES DESCRIPTION");
        for (FamilyDescriptor f : descriptor.families()) {
            out.printf(Locale.ROOT, "{NAME => '%s', BLOOMFILTER => '%s',%s VERSIONS => '%d', COMPRESSION => '%s', "
                            + "TTL => '%s', BLOCKSIZE => '%d'}%n", f.name(), f.bloomFilter() ? "ROW" : "NONE",
                    f.bloomFilter() ? " BLOOM_BITS_PER_KEY => '" + f.bloomBitsPerKey() + "'," : "",
                    f.maxVersions(), f.compression(), f.expires() ? ttl(f.timeToLive()) : "FOREVER", f.blockSize());
        }
        out.println(descriptor.families().size() + " row(s)");
    }

    private void put(List<Object> args) {
        AsyncTable table = connection.table(name(args, 0, "table"));
        byte[] row = bytes(args, 1, "row");
        byte[][] column = column(bytes(args, 2, "column 'family:qualifier'"));
        if (column[1] == null) {
            throw new UsageError("put needs a column as 'family:qualifier'");
        }
        byte[] value = bytes(args, 3, "value");
        Put put = args.size() > 4 ? new Put(row).addColumn(column[0], column[1], number(args.get(4), "timestamp"), value)
                : new Put(row).addColumn(column[0], column[1], value);
        await(table.put(put));
    }

    private void get(List<Object> args) {
        AsyncTable table = connection.table(name(args, 0, "table"));
        Get get = new Get(bytes(args, 1, "row"));
        for (int i = 2; i < args.size(); i++) {
            Object spec = args.get(i);
            if (spec instanceof byte[] column) {
                select(get, column);
            } else if (spec instanceof Map<?, ?>) {
                Map<String, Object> options = options(args, i);
                for (var e : options.entrySet()) {
                    switch (e.getKey()) {
                        case "COLUMN", "COLUMNS" -> columns(e.getValue()).forEach(c -> select(get, c));
                        case "VERSIONS" -> get.readVersions((int) number(e.getValue(), "VERSIONS"));
                        case "TIMERANGE" -> get.setTimeRange(timeRange(e.getValue()));
                        case "TIMESTAMP" -> get.setTimeRange(TimeRange.at(number(e.getValue(), "TIMESTAMP")));
                        case "CONSISTENCY" -> get.setConsistency(consistency(e.getValue()));
                        case "FILTER" -> get.setFilter(filter(e.getValue()));
                        default -> throw new UsageError("unknown get option " + e.getKey()
                                + " (known: COLUMN, VERSIONS, TIMERANGE, TIMESTAMP, CONSISTENCY, FILTER)");
                    }
                }
            } else {
                throw new UsageError("get takes columns as 'f:q' or a hash, not " + describeValue(spec));
            }
        }
        Result result = await(table.get(get));
        out.printf("%-30s %s%n", "COLUMN", "CELL");
        for (Cell cell : result.cells()) {
            out.printf(" %-29s timestamp=%d, value=%s%n",
                    Bytes.toStringBinary(cell.family()) + ":" + Bytes.toStringBinary(cell.qualifier()),
                    cell.timestamp(), Bytes.toStringBinary(cell.value()));
        }
        out.println(result.size() + " row(s)");
    }

    private static List<byte[]> columns(Object value) {
        List<byte[]> out = new ArrayList<>();
        if (value instanceof byte[] b) {
            out.add(b);
        } else if (value instanceof List<?> list) {
            for (Object item : list) {
                if (!(item instanceof byte[] b)) {
                    throw new UsageError("columns must be quoted 'family:qualifier' strings");
                }
                out.add(b);
            }
        } else {
            throw new UsageError("COLUMNS must be 'f:q' or ['f:q', ...]");
        }
        return out;
    }

    private static void select(io.basalt.client.Query<?> query, byte[] spec) {
        byte[][] column = column(spec);
        if (column[1] == null) {
            query.addFamily(column[0]);
        } else {
            query.addColumn(column[0], column[1]);
        }
    }

    private static TimeRange timeRange(Object value) {
        if (value instanceof List<?> list && list.size() == 2) {
            return new TimeRange(number(list.get(0), "TIMERANGE start"), number(list.get(1), "TIMERANGE end"));
        }
        throw new UsageError("TIMERANGE must be [min, max]");
    }

    private void delete(List<Object> args, boolean all) {
        AsyncTable table = connection.table(name(args, 0, "table"));
        byte[] row = bytes(args, 1, "row");
        Mutation delete;
        if (all && args.size() == 2) {
            delete = new Delete(row);
        } else {
            byte[][] column = column(bytes(args, 2, "column 'family:qualifier'"));
            long ts = args.size() > 3 ? number(args.get(3), "timestamp") : Mutation.LATEST_TIMESTAMP;
            Delete d = new Delete(row, ts);
            delete = column[1] == null ? d.addFamily(column[0]) : d.addColumns(column[0], column[1]);
        }
        await(table.delete((Delete) delete));
    }

    private void getCounter(List<Object> args) {
        AsyncTable table = connection.table(name(args, 0, "table"));
        byte[][] column = column(bytes(args, 2, "column 'family:qualifier'"));
        if (column[1] == null) {
            throw new UsageError("get_counter needs a column as 'family:qualifier'");
        }
        Result result = await(table.get(new Get(bytes(args, 1, "row")).addColumn(column[0], column[1])));
        if (result.isEmpty()) {
            out.println("No counter found at specified coordinates");
            return;
        }
        out.println("COUNTER VALUE = " + Increment.decode(result.cells().getFirst().value()));
    }

    private void append(List<Object> args) {
        AsyncTable table = connection.table(name(args, 0, "table"));
        byte[][] column = column(bytes(args, 2, "column 'family:qualifier'"));
        if (column[1] == null) {
            throw new UsageError("append needs a column as 'family:qualifier'");
        }
        Result result = await(table.append(new io.basalt.client.Append(bytes(args, 1, "row"))
                .addColumn(column[0], column[1], bytes(args, 3, "value"))));
        out.println("CURRENT VALUE = " + Bytes.toStringBinary(result.cells().getFirst().value()));
    }

    private void incr(List<Object> args) {
        AsyncTable table = connection.table(name(args, 0, "table"));
        byte[][] column = column(bytes(args, 2, "column 'family:qualifier'"));
        if (column[1] == null) {
            throw new UsageError("incr needs a column as 'family:qualifier'");
        }
        long amount = args.size() > 3 ? number(args.get(3), "increment") : 1;
        Result result = await(table.increment(new Increment(bytes(args, 1, "row")).addColumn(column[0], column[1], amount)));
        out.println("COUNTER VALUE = " + Increment.decode(result.cells().getFirst().value()));
    }

    private Scan scanFrom(Map<String, Object> options) {
        Scan scan = new Scan();
        byte[] rowPrefix = null;
        for (var e : options.entrySet()) {
            Object v = e.getValue();
            switch (e.getKey()) {
                case "LIMIT" -> scan.setLimit(number(v, "LIMIT"));
                case "STARTROW", "START_ROW" -> scan.withStartRow(bytes(List.of(v), 0, "STARTROW"));
                case "STOPROW", "STOP_ROW", "ENDROW" -> scan.withStopRow(bytes(List.of(v), 0, "STOPROW"));
                case "COLUMNS", "COLUMN" -> columns(v).forEach(c -> select(scan, c));
                case "REVERSED" -> scan.setReversed(Boolean.TRUE.equals(v));
                case "VERSIONS" -> scan.readVersions((int) number(v, "VERSIONS"));
                case "TIMERANGE" -> scan.setTimeRange(timeRange(v));
                case "CACHE", "CACHING" -> scan.setCaching((int) number(v, "CACHING"));
                case "CONSISTENCY" -> scan.setConsistency(consistency(v));
                case "FILTER" -> scan.setFilter(filter(v));
                case "ROWPREFIXFILTER" -> rowPrefix = bytes(List.of(v), 0, "ROWPREFIXFILTER");
                case "RAW" -> scan.setRaw(Boolean.TRUE.equals(v));
                default -> throw new UsageError("unknown scan option " + e.getKey()
                        + " (known: LIMIT, STARTROW, STOPROW, COLUMNS, REVERSED, VERSIONS, TIMERANGE, CACHING,"
                        + " CONSISTENCY, FILTER, ROWPREFIXFILTER, RAW)");
            }
        }
        if (rowPrefix != null) {
            if (scan.startRow().length > 0 || scan.stopRow().length > 0) {
                throw new UsageError("ROWPREFIXFILTER sets the start and stop rows; give it without STARTROW and STOPROW");
            }
            scan.setStartStopRowForPrefixScan(rowPrefix);
        }
        return scan;
    }

    /** A FILTER option: a string in HBase's filter language. */
    private static Filter filter(Object value) {
        if (!(value instanceof byte[] text)) {
            throw new UsageError("FILTER takes a string in the filter language, like \"PrefixFilter('u')\"; got "
                    + describeValue(value) + " (filter objects are for Java code)");
        }
        try {
            return Filter.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
    }

    private void showFilters() {
        for (String name : Filter.names()) {
            out.println(name);
        }
    }

    private void scan(List<Object> args) {
        AsyncTable table = connection.table(name(args, 0, "table"));
        Map<String, Object> options = options(args, 1);
        if (options == null) {
            throw new UsageError("scan options must be a hash: scan 't', {LIMIT => 10}");
        }
        long rows = 0;
        out.printf("%-30s %s%n", "ROW", "COLUMN+CELL");
        try (ResultScanner scanner = table.scanner(scanFrom(options))) {
            for (Result result = scanner.next(); result != null; result = scanner.next()) {
                rows++;
                for (Cell cell : result.cells()) {
                    String what = switch (cell.type()) {
                        case PUT -> "value=" + Bytes.toStringBinary(cell.value());
                        case DELETE -> "type=Delete";
                        case DELETE_COLUMN -> "type=DeleteColumn";
                        case DELETE_FAMILY -> "type=DeleteFamily";
                    };
                    out.printf(" %-29s column=%s:%s, timestamp=%d, %s%n", Bytes.toStringBinary(result.row()),
                            Bytes.toStringBinary(cell.family()), Bytes.toStringBinary(cell.qualifier()), cell.timestamp(),
                            what);
                }
            }
        }
        out.println(rows + " row(s)");
    }

    private void listRegions(String table) {
        List<RegionInfo> regions = await(connection.admin().listRegions(table));
        boolean cluster = regions.stream().anyMatch(r -> !r.replicas().isEmpty());
        String[] header = cluster ? new String[] {"REGION_NAME", "START_KEY", "END_KEY", "LEADER", "REPLICAS"}
                : new String[] {"REGION_NAME", "START_KEY", "END_KEY", "SIZE", "FILES", "MEMTABLE"};
        List<String[]> lines = new ArrayList<>();
        for (RegionInfo r : regions) {
            lines.add(cluster
                    ? new String[] {r.name(), Bytes.toStringBinary(r.start()), Bytes.toStringBinary(r.end()),
                        r.leader().isEmpty() ? "unknown" : r.leader(), String.join(", ", r.replicas())}
                    : new String[] {r.name(), Bytes.toStringBinary(r.start()), Bytes.toStringBinary(r.end()),
                        Long.toString(r.sizeBytes()), Integer.toString(r.files()), Long.toString(r.memtableBytes())});
        }
        table(header, lines);
        out.println(regions.size() + " row(s)");
    }

    /**
     * {@code status [, 'simple' | 'summary' | 'detailed']}: the store behind the connection (its
     * node, memory, files, background work and requests; {@code detailed} adds each region), or a
     * cluster's nodes and regions.
     */
    private void status(List<Object> args) {
        String format = args.isEmpty() ? "simple" : name(args, 0, "format");
        boolean detailed = switch (format) {
            case "simple", "summary" -> false;
            case "detailed" -> true;
            default -> throw new UsageError("status takes 'simple', 'summary' or 'detailed', not '" + format + "'");
        };
        if (args.size() > 1) {
            throw new UsageError("status takes at most one argument, the format");
        }
        ClusterInfo cluster;
        try {
            cluster = await(connection.admin().clusterStatus());
        } catch (RuntimeException e) {
            // one store (embedded or one server) is refused as an invalid argument (over the network, as its cause)
            if (!(e instanceof IllegalArgumentException || e.getCause() instanceof IllegalArgumentException)) {
                throw e;
            }
            storeStatus(await(connection.admin().serverStatus()), detailed);
            return;
        }
        clusterStatus(cluster);
        if (detailed) {
            out.println();
            out.print("This node holds: ");
            storeStatus(await(connection.admin().serverStatus()), true);
        }
    }

    private void storeStatus(ServerStatus s, boolean detailed) {
        boolean embedded = s.connections() < 0;
        out.printf(Locale.ROOT, "%s, %s %s%s%n", embedded ? s.node() : "server " + s.node(),
                embedded ? "open for" : "up", duration(s.uptimeMillis()),
                embedded ? "" : ", " + s.connections() + " connection(s), " + s.requests() + " request(s) answered");
        if (s.readOnlyReason() != null) {
            out.println("READ-ONLY until reopened: " + s.readOnlyReason());
        }
        out.printf(Locale.ROOT, "%d table(s), %d region(s), %d file(s), %s on disk, %s in memtables%n",
                s.tables().size(), s.regions(), s.files(), bytes(s.sizeBytes()), bytes(s.memtableBytes()));
        long lookups = s.blockCacheHits() + s.blockCacheMisses();
        out.printf(Locale.ROOT, "block cache %s of %s, %s%n", bytes(s.blockCacheBytes()), bytes(s.blockCacheCapacity()),
                lookups == 0 ? "no lookups yet" : String.format(Locale.ROOT, "%.1f%% of %d lookups hit",
                        100.0 * s.blockCacheHits() / lookups, lookups));
        out.printf(Locale.ROOT, "%d row(s) read, %d mutation(s) applied; %d flush(es), %d compaction(s) (%d running),"
                + " %d write stall(s)%n", s.readRequests(), s.writeRequests(), s.flushes(), s.compactions(),
                s.compactionsRunning(), s.stalls());
        if (!detailed) {
            return;
        }
        out.printf(Locale.ROOT, "write-ahead log: %d sync(s), %s written%n", s.walSyncs(), bytes(s.walBytes()));
        List<String[]> lines = new ArrayList<>();
        for (ServerStatus.Table t : s.tables()) {
            for (ServerStatus.Region r : t.regions()) {
                RegionInfo info = r.info();
                lines.add(new String[] {info.name() + (t.disabled() ? " (disabled)" : ""),
                    Bytes.toStringBinary(info.start()), Bytes.toStringBinary(info.end()), Long.toString(info.sizeBytes()),
                    Integer.toString(info.files()), Long.toString(info.memtableBytes()),
                    Long.toString(r.readRequests()), Long.toString(r.writeRequests())});
            }
        }
        table(new String[] {"REGION_NAME", "START_KEY", "END_KEY", "SIZE", "FILES", "MEMTABLE", "READS", "WRITES"},
                lines);
        out.println(s.regions() + " region(s)");
    }

    /** {@code 1h 02m 03s}, {@code 4m 05s}, {@code 6s}. */
    static String duration(long millis) {
        long seconds = millis / 1000;
        long h = seconds / 3600;
        long m = seconds / 60 % 60;
        long sec = seconds % 60;
        return h > 0 ? String.format(Locale.ROOT, "%dh %02dm %02ds", h, m, sec)
                : m > 0 ? String.format(Locale.ROOT, "%dm %02ds", m, sec) : sec + "s";
    }

    /** {@code 512 B}, {@code 1.5 KiB}, {@code 20.0 MiB}... */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** A cluster's nodes (state, regions led and held) and its regions. */
    private void clusterStatus(ClusterInfo info) {
        List<String[]> nodes = new ArrayList<>();
        for (ClusterInfo.Node n : info.nodes()) {
            long held = info.regions().stream().filter(r -> r.replicas().stream().anyMatch(x -> x.node() == n.id()))
                    .count();
            long led = info.regions().stream().filter(r -> r.leader() == n.id()).count();
            nodes.add(new String[] {Integer.toString(n.id()), n.address(), n.up() ? "up" : "down",
                    Long.toString(held), Long.toString(led)});
        }
        table(new String[] {"NODE", "ADDRESS", "STATE", "REGIONS", "LEADS"}, nodes);
        out.println(info.nodes().size() + " node(s)");
        List<String[]> regions = new ArrayList<>();
        for (ClusterInfo.Region r : info.regions()) {
            StringBuilder replicas = new StringBuilder();
            for (ClusterInfo.Replica x : r.replicas()) {
                replicas.append(replicas.isEmpty() ? "" : ", ").append(x.node()).append(' ').append(x.role())
                        .append(x.lag() >= 0 ? " lag " + x.lag() : "");
            }
            regions.add(new String[] {r.table() + "," + r.start() + "," + r.id(), r.start(), r.end(),
                    r.leader() == 0 ? "none" : Integer.toString(r.leader()), replicas.toString()});
        }
        table(new String[] {"REGION_NAME", "START_KEY", "END_KEY", "LEADER", "REPLICAS"}, regions);
        out.println(info.regions().size() + " region(s)");
    }

    private void table(String[] header, List<String[]> lines) {
        int[] widths = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            widths[i] = header[i].length();
            for (String[] line : lines) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        printRow(header, widths);
        lines.forEach(line -> printRow(line, widths));
    }

    private void printRow(String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            line.append(i == 0 ? " " : " | ").append(String.format(Locale.ROOT, "%-" + widths[i] + "s", cells[i]));
        }
        out.println(line.toString().stripTrailing());
    }

    private void locateRegion(List<Object> args) {
        String table = name(args, 0, "table");
        RegionInfo r = await(connection.admin().locateRegion(table, bytes(args, 1, "row")));
        out.println("REGION");
        if (!r.replicas().isEmpty()) {
            out.printf(Locale.ROOT, " {NAME => '%s', STARTKEY => '%s', ENDKEY => '%s', LEADER => '%s', REPLICAS =>"
                    + " [%s]}%n", r.name(), Bytes.toStringBinary(r.start()), Bytes.toStringBinary(r.end()),
                    r.leader().isEmpty() ? "unknown" : r.leader(), String.join(", ", r.replicas()));
        } else {
            out.printf(Locale.ROOT, " {NAME => '%s', STARTKEY => '%s', ENDKEY => '%s', SIZE => %d, FILES => %d,"
                    + " MEMTABLE => %d}%n", r.name(), Bytes.toStringBinary(r.start()), Bytes.toStringBinary(r.end()),
                    r.sizeBytes(), r.files(), r.memtableBytes());
        }
        out.println("1 row(s)");
    }

    private void split(List<Object> args) {
        String table = name(args, 0, "table");
        byte[] row = args.size() > 1 ? bytes(args, 1, "split row") : null;
        int before = await(connection.admin().listRegions(table)).size();
        await(connection.admin().split(table, row));
        int after = await(connection.admin().listRegions(table)).size();
        out.println("Table " + table + " now has " + after + " region(s)" + (after == before
                ? " (no region had enough data to find a middle row; name a split row)" : ""));
    }

    /**
     * {@code merge_region 'name1', 'name2'} with names as {@code list_regions} prints them
     * ({@code table,start,id}), or {@code merge_region 't', 'id1', 'id2'}.
     */
    private void mergeRegion(List<Object> args) {
        String table;
        String first;
        String second;
        if (args.size() >= 3) {
            table = name(args, 0, "table");
            first = name(args, 1, "first region");
            second = name(args, 2, "second region");
        } else {
            first = name(args, 0, "first region");
            second = name(args, 1, "second region");
            int comma = first.indexOf(',');
            if (comma <= 0) {
                throw new UsageError("merge_region takes region names as list_regions prints them ('t,start,id'),"
                        + " or a table and two region ids: merge_region 't', '12', '13'");
            }
            table = first.substring(0, comma);
        }
        await(connection.admin().mergeRegions(table, first, second));
        out.println("Merged; table " + table + " now has " + await(connection.admin().listRegions(table)).size()
                + " region(s)");
    }

    /** {@code count 't'}, or {@code count 't,start,id'} for one region (a name as list_regions prints it). */
    private void count(List<Object> args) {
        String name = name(args, 0, "table");
        Scan scan = new Scan();
        int comma = name.indexOf(',');
        String tableName = comma > 0 ? name.substring(0, comma) : name;
        if (comma > 0) {
            String id = name.substring(name.lastIndexOf(',') + 1);
            RegionInfo region = await(connection.admin().listRegions(tableName)).stream()
                    .filter(r -> r.name().equals(name) || Long.toString(r.id()).equals(id)).findFirst()
                    .orElseThrow(() -> new UsageError("table " + tableName + " has no region " + name
                            + "; list_regions shows them"));
            scan.withStartRow(region.start());
            if (region.end().length > 0) {
                scan.withStopRow(region.end());
            }
        }
        long interval = 1000;
        for (int i = 1; i < args.size(); i++) {
            Map<String, Object> options = options(args, i);
            if (options == null) {
                throw new UsageError("count takes options as a hash: count 't', INTERVAL => 1000, CACHE => 500");
            }
            for (var e : options.entrySet()) {
                switch (e.getKey()) {
                    case "INTERVAL" -> interval = number(e.getValue(), "INTERVAL");
                    case "CACHE" -> scan.setCaching((int) number(e.getValue(), "CACHE"));
                    case "FILTER" -> scan.setFilter(filter(e.getValue()));
                    default -> throw new UsageError("unknown count option " + e.getKey() + " (known: INTERVAL, CACHE, FILTER)");
                }
            }
        }
        if (interval < 1) {
            throw new UsageError("INTERVAL must be at least 1, not " + interval);
        }
        if (scan.filter() == null) {
            scan.setFilter(new io.basalt.client.filter.FirstKeyOnlyFilter()); // a row is counted by its first cell
        }
        AsyncTable table = connection.table(tableName);
        long rows = 0;
        try (ResultScanner scanner = table.scanner(scan)) {
            for (Result r = scanner.next(); r != null; r = scanner.next()) {
                rows++;
                if (rows % interval == 0) {
                    out.println("Current count: " + rows + ", row: " + Bytes.toStringBinary(r.row()));
                }
            }
        }
        out.println(rows + " row(s)");
    }
}
