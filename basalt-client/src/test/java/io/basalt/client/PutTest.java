package io.basalt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.CellType;
import io.basalt.cell.EncodedCell;
import org.junit.jupiter.api.Test;

class PutTest {

    @Test
    void aCellOfThePutsRowIsAddedAsItIs() {
        Cell cell = EncodedCell.decode(CellLayout.encode(Cell.put("r", "f", "q", 5, "v")), 0);
        Put put = new Put("r".getBytes()).add(cell);
        assertThat(put.cells()).hasSize(1);
        assertThat(put.cells().getFirst()).isSameAs(cell);
    }

    @Test
    void aCellOfAnotherRowOrTypeIsRefusedNamingWhy() {
        Put put = new Put("r".getBytes());
        assertThatThrownBy(() -> put.add(Cell.put("other", "f", "q", 5, "v")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row other")
                .hasMessageContaining("put of row r");
        Cell delete = Cell.of("r".getBytes(), "f".getBytes(), "q".getBytes(), 5, CellType.DELETE, new byte[0]);
        assertThatThrownBy(() -> put.add(delete)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not DELETE");
        assertThat(put.isEmpty()).isTrue();
    }
}
