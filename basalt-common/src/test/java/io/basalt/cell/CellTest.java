package io.basalt.cell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.bytes.Bytes;
import org.junit.jupiter.api.Test;

class CellTest {

    private static final byte[] F = Bytes.utf8("f");
    private static final byte[] Q = Bytes.utf8("q");
    private static final byte[] V = Bytes.utf8("v");

    @Test
    void acceptsComponentsAtTheirLimits() {
        Cell cell = Cell.of(new byte[Cell.MAX_ROW_LENGTH], new byte[Cell.MAX_FAMILY_LENGTH],
                new byte[Cell.MAX_QUALIFIER_LENGTH], Long.MAX_VALUE, CellType.DELETE_FAMILY, V);

        assertThat(EncodedCell.decode(CellLayout.encode(cell), 0)).isEqualTo(cell);
    }

    @Test
    void rowOverTheLimitIsRejectedWithItsSize() {
        assertThatThrownBy(() -> Cell.of(new byte[32_768], F, Q, 1, CellType.PUT, V))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("row is 32768 bytes; the limit is 32767 (Cell.MAX_ROW_LENGTH)");
    }

    @Test
    void emptyRowIsRejected() {
        assertThatThrownBy(() -> Cell.of(Bytes.EMPTY, F, Q, 1, CellType.PUT, V))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("row is empty");
    }

    @Test
    void familyOverTheLimitIsRejected() {
        assertThatThrownBy(() -> Cell.of(V, new byte[256], Q, 1, CellType.PUT, V))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("family is 256 bytes; the limit is 255 (Cell.MAX_FAMILY_LENGTH)");
    }

    @Test
    void qualifierOverTheLimitIsRejected() {
        assertThatThrownBy(() -> Cell.of(V, F, new byte[65_536], 1, CellType.PUT, V))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("qualifier is 65536 bytes; the limit is 65535 (Cell.MAX_QUALIFIER_LENGTH)");
    }

    @Test
    void negativeTimestampIsRejected() {
        assertThatThrownBy(() -> Cell.of(V, F, Q, -1, CellType.PUT, V))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timestamp -1 is negative");
    }

    @Test
    void nullComponentIsNamed() {
        assertThatThrownBy(() -> Cell.of(V, null, Q, 1, CellType.PUT, V))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("family");
    }

    @Test
    void printsLikeHBase() {
        Cell cell = Cell.of(new byte[] {'r', 0x00, (byte) 0xFF}, F, Q, 42, CellType.DELETE_COLUMN, V);
        assertThat(cell).hasToString("r\\x00\\xFF/f:q/42/DELETE_COLUMN/vlen=1");
    }

    @Test
    void typeCodesRoundTrip() {
        for (CellType type : CellType.values()) {
            assertThat(CellType.fromCode(type.code())).isSameAs(type);
        }
        assertThat(CellType.fromCode((byte) 0)).isNull();
        assertThat(CellType.PUT.isDelete()).isFalse();
        assertThat(CellType.DELETE_FAMILY.isDelete()).isTrue();
    }
}
