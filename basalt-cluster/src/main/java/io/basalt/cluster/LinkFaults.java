package io.basalt.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.ratis.util.CodeInjectionForTesting;

/**
 * Cut network links between nodes, for the nemesis: a partition without a proxy.
 *
 * <p>Ratis calls a hook on the receiving server before it handles each vote request, append
 * (heartbeats included), snapshot installation and leadership hand-over, naming the sender. With a
 * link cut here, the receiver refuses the message before reading it, so each side of a partition
 * hears nothing of the other's Raft traffic, exactly as if the packets were dropped (the sender
 * learns of it sooner, from an error rather than a timeout, which Raft does not rely on either
 * way). A node also stops forwarding client requests to a group when every other member is cut
 * off from it. Client connections to a node's client port stay up: a client may go on talking to
 * the isolated side, the most demanding case for stale reads.
 *
 * <p>Cuts are per receiving node, so nodes sharing one JVM (tests) are cut independently; a node
 * process started with {@code -Dbasalt.nemesis.links=FILE} follows that file (peer ids, comma
 * separated, it must not hear from), polled every 20 ms. Nothing here runs unless a test or a
 * nemesis asks for it.
 */
public final class LinkFaults {

    private static final String[] POINTS = {"RaftServerImpl.requestVote", "RaftServerImpl.appendEntries",
        "RaftServerImpl.installSnapshot", "RaftServerImpl.startLeaderElection"};
    private static final Map<String, Set<String>> CUT = new ConcurrentHashMap<>();
    private static volatile boolean installed;

    private LinkFaults() {
    }

    /** From now on {@code node} hears nothing from {@code remotes} (replacing what it had cut before). */
    public static void cut(String node, Collection<String> remotes) {
        install();
        if (remotes.isEmpty()) {
            CUT.remove(node);
        } else {
            CUT.put(node, Set.copyOf(remotes));
        }
    }

    /** Every link works again. */
    public static void healAll() {
        CUT.clear();
    }

    /** Whether {@code node} hears nothing from {@code remote}. */
    public static boolean isCut(String node, String remote) {
        Set<String> cut = CUT.get(node);
        return cut != null && cut.contains(remote);
    }

    /** Whether every one of {@code members} other than {@code node} is cut off from it. */
    static boolean cutOffFromAll(String node, Collection<String> members) {
        Set<String> cut = CUT.get(node);
        return cut != null && members.stream().filter(m -> !m.equals(node)).allMatch(cut::contains)
                && members.stream().anyMatch(m -> !m.equals(node));
    }

    /** Follows {@code file} for {@code node}'s cuts, on a daemon thread, for the life of the process. */
    static void follow(Path file, String node) {
        install();
        Thread.ofPlatform().daemon().name("link-faults").start(() -> {
            String last = "";
            while (true) {
                String now;
                try {
                    now = Files.readString(file).trim();
                } catch (NoSuchFileException e) {
                    now = "";
                } catch (IOException e) {
                    now = last; // replaced while read: the next poll sees the new content
                }
                if (!now.equals(last)) {
                    cut(node, now.isEmpty() ? Set.of()
                            : Arrays.stream(now.split(",")).map(String::trim).collect(Collectors.toSet()));
                    System.out.println("node " + node + " cut off from [" + now + "]");
                    last = now;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    private static synchronized void install() {
        if (installed) {
            return;
        }
        for (String point : POINTS) {
            CodeInjectionForTesting.put(point, (local, remote, args) -> {
                if (local != null && remote != null && isCut(local.toString(), remote.toString())) {
                    throw new LinkCut(point, remote + " -> " + local);
                }
                return false;
            });
        }
        installed = true;
    }

    /** A message refused because its link is cut; no stack trace, there is one per heartbeat. */
    static final class LinkCut extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LinkCut(String point, String link) {
            super("link " + link + " is cut (" + point + ")", null, false, false);
        }
    }
}
