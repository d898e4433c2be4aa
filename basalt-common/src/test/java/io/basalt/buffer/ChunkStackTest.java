package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ChunkStackTest {

    @Test
    void anEmptyStackPopsEmpty() {
        assertThat(new ChunkStack(4).pop()).isEqualTo(ChunkStack.EMPTY);
    }

    @Test
    void popsTheMostRecentlyPushedChunkFirst() {
        ChunkStack stack = new ChunkStack(8);
        stack.push(3);
        stack.push(5);
        stack.push(0);
        assertThat(stack.pop()).isEqualTo(0);
        stack.push(7);
        assertThat(stack.pop()).isEqualTo(7);
        assertThat(stack.pop()).isEqualTo(5);
        assertThat(stack.pop()).isEqualTo(3);
        assertThat(stack.pop()).isEqualTo(ChunkStack.EMPTY);
    }

    @Test
    void pushAllAndPushRangeStackTheirChunksInOrderOnTopOfWhatIsThere() {
        ChunkStack stack = new ChunkStack(16);
        stack.push(9);
        stack.pushRange(2, 5);
        stack.pushAll(new int[] {12, 10, 14});
        stack.pushRange(7, 8);
        int[] expected = {7, 12, 10, 14, 2, 3, 4, 9, ChunkStack.EMPTY};
        for (int chunk : expected) {
            assertThat(stack.pop()).isEqualTo(chunk);
        }
    }
}
