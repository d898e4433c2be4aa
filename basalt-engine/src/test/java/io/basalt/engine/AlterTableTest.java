package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Connection;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.bytes.Bytes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code alter} (Admin.modifyTable) and {@code disable} as the store does them: one manifest edit
 * that a reopened store replays, a dropped family's files deleted, writes after the alter
 * recovered from the log, writers racing the alter losing nothing, and a disabled table staying
 * disabled across a restart.
 */
class AlterTableTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private Connection open() throws Exception {
        return new EmbeddedConnection(Store.open(dir, StoreOptions.defaults().withRegionSplitSize(0), clock::get,
                new StripedRegionLocks()));
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private List<Path> files(String family) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(".sst") && p.getParent().getFileName().toString().equals(family))
                    .toList();
        }
    }

    @Test
    void anAlterSurvivesReopeningAndItsDroppedFamilyLeavesTheDisk() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(3),
                    FamilyDescriptor.of("g"))), List.of(Bytes.utf8("m"))));
            for (String row : List.of("a", "z")) {
                await(c.table("t").put(new Put(Bytes.utf8(row)).addColumn(Bytes.utf8("f"), Bytes.utf8("q"), 1, Bytes.utf8("1"))
                        .addColumn(Bytes.utf8("f"), Bytes.utf8("q"), 2, Bytes.utf8("2"))
                        .addColumn(Bytes.utf8("g"), Bytes.utf8("q"), 1, Bytes.utf8("g"))));
            }
            await(c.admin().flush("t"));
            assertThat(files("g")).hasSize(2);

            await(c.admin().modifyTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(1),
                    FamilyDescriptor.of("h").withTimeToLive(java.time.Duration.ofHours(1))))));
            assertThat(files("g")).as("the dropped family's files, unread, are deleted").isEmpty();
            await(c.table("t").put(Put.of("a").addColumn("h", "q", "after")));
        }
        try (Connection c = open()) {
            TableDescriptor described = await(c.admin().describeTable("t"));
            assertThat(described.families()).extracting(FamilyDescriptor::name).containsExactly("f", "h");
            assertThat(described.family("f").orElseThrow().maxVersions()).isEqualTo(1);
            assertThat(described.family("h").orElseThrow().timeToLive()).isEqualTo(java.time.Duration.ofHours(1));
            Result a = await(c.table("t").get(Get.of("a").readAllVersions()));
            assertThat(a.cells()).extracting(cell -> new String(cell.familyBytes()) + "=" + new String(cell.valueBytes()))
                    .containsExactly("f=2", "h=after");
            assertThat(await(c.admin().listRegions("t"))).hasSize(2);
        }
    }

    @Test
    void writersRacingAnAlterLoseNothing() throws Exception {
        ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f", "g"), List.of(Bytes.utf8("row05"))));
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int id = w;
                Thread t = new Thread(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        String row = String.format("row%02d-%d-%05d", i % 10, id, i);
                        try {
                            c.table("t").put(Put.of(row).addColumn("f", "q", row)).get(30, TimeUnit.SECONDS);
                            acknowledged.add(row);
                        } catch (Exception e) {
                            throw new AssertionError("write " + row + " failed", e);
                        }
                    }
                });
                writers.add(t);
                t.start();
            }
            int rounds = 0;
            for (int round = 0; round < 200 && writers.stream().anyMatch(Thread::isAlive); round++, rounds++) {
                int versions = 1 + round % 5;
                List<FamilyDescriptor> families = new ArrayList<>(List.of(FamilyDescriptor.of("f").withMaxVersions(versions)));
                if (round % 2 == 0) {
                    families.add(FamilyDescriptor.of("h" + round));
                }
                await(c.admin().modifyTable(new TableDescriptor("t", families)));
            }
            for (Thread t : writers) {
                t.join(120_000);
            }
            assertThat(rounds).as("alters that raced the writers").isGreaterThan(1);
            assertThat(acknowledged).hasSize(6_000);
            for (String row : acknowledged) {
                assertThat(await(c.table("t").get(Get.of(row))).value("f", "q")).as(row).isNotNull();
            }
        }
        try (Connection c = open()) {
            for (String row : acknowledged) {
                assertThat(await(c.table("t").get(Get.of(row))).value("f", "q")).as("after reopening: %s", row).isNotNull();
            }
        }
    }

    @Test
    void aDisabledTableStaysDisabledAfterARestart() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("r").addColumn("f", "q", "v")));
            await(c.admin().disableTable("t"));
        }
        try (Connection c = open()) {
            assertThat(await(c.admin().isTableDisabled("t"))).isTrue();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> await(c.table("t").get(Get.of("r"))))
                    .hasCauseInstanceOf(io.basalt.client.TableDisabledException.class);
            await(c.admin().enableTable("t"));
            assertThat(await(c.table("t").get(Get.of("r"))).value("f", "q")).isNotNull();
        }
    }
}
