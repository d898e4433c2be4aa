package io.basalt.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Picks ports for nodes started on one machine (local clusters, load runs, tests).
 *
 * <p>A port asked of the kernel with {@code bind(0)} comes from its ephemeral range, the same range
 * every outgoing connection takes its local port from: between closing the probe socket and the
 * node binding the port, a client connection elsewhere on the machine may take it, and the node
 * then fails with "address already in use". Ports here come from below that range instead
 * ({@code /proc/sys/net/ipv4/ip_local_port_range}, 32768 by default on Linux), starting at a place
 * that depends on the process id so that two processes picking at once rarely probe the same ports,
 * and never handing out one port twice in a process.
 */
public final class FreePorts {

    private static final int LOW = 20_000;
    private static final int HIGH = Math.max(LOW + 1_000, ephemeralLow());
    private static final AtomicInteger NEXT =
            new AtomicInteger(Math.floorMod(ProcessHandle.current().pid() * 7_919L, HIGH - LOW));

    private FreePorts() {
    }

    /** A port nothing on this machine listens on, outside the kernel's ephemeral range. */
    public static int take() throws IOException {
        for (int tried = 0; tried < HIGH - LOW; tried++) {
            int port = LOW + Math.floorMod(NEXT.getAndIncrement(), HIGH - LOW);
            if (bindable(port)) {
                return port;
            }
        }
        throw new IOException("no free port between " + LOW + " and " + HIGH);
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
