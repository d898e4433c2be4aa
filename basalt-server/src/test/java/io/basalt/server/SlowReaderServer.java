package io.basalt.server;

import io.basalt.client.Durability;
import io.basalt.client.StoreOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The server of {@link SlowReaderIT}, run in a JVM of its own with small heap and direct-memory
 * limits, so a server that queues without bound fails the test instead of exhausting the machine.
 * Prints {@code PORT n} once it listens, then {@code MEM heapUsed rss} (bytes) every 50 ms, the
 * resident set read from {@code /proc/self/status}: Netty may allocate its buffers with
 * {@code malloc}, out of the JVM's sight and its direct-memory limit, so only the process's own
 * size tells. When that passes {@code rssLimit} it prints {@code OVER rss} and halts. It stops when
 * its standard input closes.
 *
 * <p>Arguments: the data directory, {@code maxInFlightPerConnection}, {@code rssLimit} in bytes.
 */
final class SlowReaderServer {

    private SlowReaderServer() {}

    /** The process's resident set size in bytes (Linux), or -1 when it cannot be read. */
    static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    public static void main(String[] args) throws Exception {
        long rssLimit = Long.parseLong(args[2]);
        ServerConfig config = ServerConfig.builder().port(0).dataDir(Path.of(args[0])).ioThreads(2)
                .maxInFlightPerConnection(Integer.parseInt(args[1]))
                .store(StoreOptions.defaults().withDurability(Durability.ASYNC).withBlockCacheSize(8 << 20)).build();
        BasaltServer server = BasaltServer.start(config);
        System.out.println("PORT " + server.address().getPort());
        System.out.flush();
        Thread reporter = Thread.ofPlatform().daemon().name("memory-reporter").start(() -> {
            Runtime rt = Runtime.getRuntime();
            while (true) {
                long rss = rss();
                System.out.println("MEM " + (rt.totalMemory() - rt.freeMemory()) + " " + rss);
                if (rss > rssLimit) {
                    System.out.println("OVER " + rss);
                    System.out.flush();
                    Runtime.getRuntime().halt(3);
                }
                System.out.flush();
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (in.readLine() != null) {
                // the parent closes our standard input to stop us
            }
        }
        reporter.interrupt();
        server.close();
        System.out.println("STOPPED");
        System.out.flush();
    }
}
