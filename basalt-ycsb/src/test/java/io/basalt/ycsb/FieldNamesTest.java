package io.basalt.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FieldNamesTest {

    @Test
    void ycsbsTenFieldNamesAreMadeOnceEachWay() {
        FieldNames names = new FieldNames();
        String[] first = new String[10];
        byte[][] firstBytes = new byte[10][];
        for (int i = 0; i < 10; i++) {
            byte[] qualifier = ("field" + i).getBytes(StandardCharsets.UTF_8);
            first[i] = names.name(qualifier, 0, qualifier.length);
            firstBytes[i] = names.qualifier("field" + i);
        }
        for (int i = 0; i < 10; i++) {
            byte[] stored = ("xx" + "field" + i + "yy").getBytes(StandardCharsets.UTF_8);
            assertThat(names.name(stored, 2, stored.length - 4)).as("field%d read again", i)
                    .isEqualTo("field" + i).isSameAs(first[i]);
            assertThat(names.qualifier(new String("field" + i))).as("field%d written again", i)
                    .isEqualTo(("field" + i).getBytes(StandardCharsets.UTF_8)).isSameAs(firstBytes[i]);
        }
    }

    @Test
    void whatComesBackIsWhatDecodingAndEncodingMakeWhateverTheSlotsHold() {
        // Many more names than slots, repeated, so that slots are shared and taken over; any
        // bytes (malformed UTF-8 included, which decodes to replacement characters) and any text.
        FieldNames names = new FieldNames();
        SplittableRandom random = new SplittableRandom(7);
        byte[][] pool = new byte[500][];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = new byte[random.nextInt(0, 12)];
            for (int j = 0; j < pool[i].length; j++) {
                pool[i][j] = (byte) random.nextInt(256);
            }
        }
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = pool[random.nextInt(pool.length)];
            byte[] padded = new byte[bytes.length + 3];
            System.arraycopy(bytes, 0, padded, 1, bytes.length);
            String expected = new String(bytes, StandardCharsets.UTF_8);
            assertThat(names.name(padded, 1, bytes.length)).isEqualTo(expected);
            assertThat(names.qualifier(expected)).isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
        }
    }
}
