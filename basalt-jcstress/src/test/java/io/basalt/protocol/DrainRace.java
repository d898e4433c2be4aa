package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The race the grouped writer's drain flag must win ({@link GroupedWriter}, "No frame left
 * behind"), for jcstress tests that pick the stripe count (jcstress does not take actors from a
 * superclass, so each test's actors call these). The writer's drains go to a queue the
 * test runs itself, standing in for the event loop. One actor, an application thread, writes
 * {@value #FRAMES} frames; the other, the event loop, runs the drains posted so far, writes a
 * frame of its own (as a server answers on its event loop) and runs them again; the arbiter runs
 * what is still posted, as the loop eventually would. Each frame is two bytes, its writer's name
 * and its sequence number, so the arbiter can tell which frames went out, how often and in what
 * order. Every frame must go out exactly once, each thread's in order: a frame appended just
 * after a drain took its stripe must have posted the next drain, or found one posted that had
 * not yet started taking the stripes.
 */
final class DrainRace {

    /** The application thread's frames: each one more chance to land in the window a drain leaves. */
    static final int FRAMES = 4;

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final Queue<Runnable> posted = new ConcurrentLinkedQueue<>();
    private final GroupedWriter writer;

    DrainRace(int stripes) {
        writer = new GroupedWriter(channel, WriteMode.GROUPED, 1024, 0, stripes, posted::add);
    }

    void applicationThread() {
        for (int seq = 0; seq < FRAMES; seq++) {
            write('A', seq);
        }
    }

    void eventLoop() {
        runPosted();
        write('B', 0);
        runPosted();
    }

    /**
     * Runs what is still posted, then reads what was flushed: {@code r1} and {@code r2} are how
     * many of A's and B's frames went out, or -1 when one went out twice or out of order. Then
     * releases everything.
     */
    void settle(II_Result r) {
        runPosted();
        int[] next = new int[2];
        boolean[] broken = new boolean[2];
        for (ByteBuf m; (m = channel.readOutbound()) != null; ) {
            try {
                while (m.readableBytes() >= 2) {
                    int who = m.readByte() - 'A';
                    int seq = m.readByte();
                    if (seq != next[who]) {
                        broken[who] = true;
                    }
                    next[who]++;
                }
            } finally {
                m.release();
            }
        }
        r.r1 = broken[0] ? -1 : next[0];
        r.r2 = broken[1] ? -1 : next[1];
        writer.close();
        channel.finishAndReleaseAll();
    }

    /** Writes frame {@code seq} of writer {@code name} ('A' or 'B'). */
    private void write(char name, int seq) {
        writer.write(2, b -> b.writeByte(name).writeByte(seq));
    }

    /** Runs the drains posted so far, as the event loop would. */
    private void runPosted() {
        for (Runnable task; (task = posted.poll()) != null; ) {
            task.run();
        }
    }
}
