package io.basalt.engine;

import io.basalt.client.Compression;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.TableDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One atomic change to the store's catalog and file set, as one manifest record: a list of tagged
 * changes. Each {@link Tag} writes and reads its own fields, so the format and its code sit
 * together; the record framing (length, crc32c) is {@link RecordLogLayout}'s.
 *
 * <pre>
 *  payload := change*
 *  change  := tag u8, then the tag's fields (varint = unsigned LEB128, str = varint length + UTF-8,
 *             bytes = varint length + raw):
 *   1 CREATE_TABLE    tableId varint, name str, families varint,
 *                     per family: name str, maxVersions varint, ttlMillis varint, bloom u8,
 *                                 blockSize varint, compression u8
 *                     (bloom: 0 none, 1 the default bits per row, 2..32 those bits per row)
 *                     (written before regions: the table and one region of the whole key range,
 *                     whose region id is the table id; still read, no longer written)
 *   2 DROP_TABLE      tableId varint                    (the table and all its regions)
 *   3 ADD_FILE        regionId varint, family str, fileNumber varint, fileSize varint,
 *                     entries varint, maxSequence varint, firstKey bytes, lastKey bytes
 *   4 REMOVE_FILE     regionId varint, family str, fileNumber varint
 *   5 FLUSHED         regionId varint, sequence varint  (the region's data up to here is in SSTables)
 *   6 NEXT_FILE       fileNumber varint                 (file numbers below are taken)
 *   7 NEXT_TABLE      id varint                         (table and region ids below are taken)
 *   8 TABLE           as CREATE_TABLE, without a region
 *   9 REGION          tableId varint, regionId varint, start bytes, end bytes, flushed varint
 *                     (a region [start, end) of the table; an empty end is the end of the table)
 *  10 DROP_REGION     regionId varint                   (the region and its file references)
 *  11 ALTER_TABLE     as TABLE: the table's families from now on; each of its regions drops the
 *                     file references of a family it leaves out and starts a new family empty
 *  12 TABLE_STATE     tableId varint, disabled u8       (reads and writes refused while disabled)
 * </pre>
 *
 * <p>A file belongs to a region by reference: after a split both daughters list the parent's
 * files, each reading only its own key range of them, until compaction rewrites them. Table and
 * region ids share one counter, so the first region of a table written before regions keeps the
 * table's id.
 * </pre>
 */
record ManifestEdit(List<Change> changes) {

    /** One change of an edit. */
    sealed interface Change {
        Tag tag();
    }

    record CreateTable(int tableId, TableDescriptor descriptor) implements Change {
        public Tag tag() {
            return Tag.CREATE_TABLE;
        }
    }

    record DropTable(int tableId) implements Change {
        public Tag tag() {
            return Tag.DROP_TABLE;
        }
    }

    record AddFile(int regionId, String family, FileMeta file) implements Change {
        public Tag tag() {
            return Tag.ADD_FILE;
        }
    }

    record RemoveFile(int regionId, String family, long fileNumber) implements Change {
        public Tag tag() {
            return Tag.REMOVE_FILE;
        }
    }

    record Flushed(int regionId, long sequence) implements Change {
        public Tag tag() {
            return Tag.FLUSHED;
        }
    }

    record NextFile(long fileNumber) implements Change {
        public Tag tag() {
            return Tag.NEXT_FILE;
        }
    }

    record NextTable(int tableId) implements Change {
        public Tag tag() {
            return Tag.NEXT_TABLE;
        }
    }

    /** A table created without a region: its regions follow as {@link AddRegion}s. */
    record Table(int tableId, TableDescriptor descriptor) implements Change {
        public Tag tag() {
            return Tag.TABLE;
        }
    }

    /** A region {@code [start, end)} of a table; an empty {@code end} is the table's end. */
    record AddRegion(int tableId, int regionId, byte[] start, byte[] end, long flushedSequence) implements Change {
        public Tag tag() {
            return Tag.REGION;
        }
    }

    /** A table's new families (alter): see the format's tag 11. */
    record AlterTable(int tableId, TableDescriptor descriptor) implements Change {
        public Tag tag() {
            return Tag.ALTER_TABLE;
        }
    }

    /** Whether a table is disabled: see the format's tag 12. */
    record TableState(int tableId, boolean disabled) implements Change {
        public Tag tag() {
            return Tag.TABLE_STATE;
        }
    }

    record DropRegion(int regionId) implements Change {
        public Tag tag() {
            return Tag.DROP_REGION;
        }
    }

    /** What the manifest records about one SSTable. */
    record FileMeta(long fileNumber, long fileSize, long entries, long maxSequence, byte[] firstKey, byte[] lastKey) {}

    enum Tag {
        CREATE_TABLE(1) {
            @Override
            void write(Change change, Writer out) {
                CreateTable c = (CreateTable) change;
                writeTable(c.tableId(), c.descriptor(), out);
            }

            @Override
            Change read(Varints.Reader in) {
                int tableId = in.readInt(Integer.MAX_VALUE, "table id");
                return new CreateTable(tableId, readDescriptor(in));
            }
        },
        DROP_TABLE(2) {
            @Override
            void write(Change change, Writer out) {
                out.varint(((DropTable) change).tableId());
            }

            @Override
            Change read(Varints.Reader in) {
                return new DropTable(in.readInt(Integer.MAX_VALUE, "table id"));
            }
        },
        ADD_FILE(3) {
            @Override
            void write(Change change, Writer out) {
                AddFile c = (AddFile) change;
                out.varint(c.regionId());
                out.string(c.family());
                out.varint(c.file().fileNumber());
                out.varint(c.file().fileSize());
                out.varint(c.file().entries());
                out.varint(c.file().maxSequence());
                out.bytes(c.file().firstKey());
                out.bytes(c.file().lastKey());
            }

            @Override
            Change read(Varints.Reader in) {
                int regionId = in.readInt(Integer.MAX_VALUE, "region id");
                String family = string(in);
                FileMeta file = new FileMeta(in.readLong(), in.readLong(), in.readLong(), in.readLong(), bytes(in),
                        bytes(in));
                return new AddFile(regionId, family, file);
            }
        },
        REMOVE_FILE(4) {
            @Override
            void write(Change change, Writer out) {
                RemoveFile c = (RemoveFile) change;
                out.varint(c.regionId());
                out.string(c.family());
                out.varint(c.fileNumber());
            }

            @Override
            Change read(Varints.Reader in) {
                return new RemoveFile(in.readInt(Integer.MAX_VALUE, "region id"), string(in), in.readLong());
            }
        },
        FLUSHED(5) {
            @Override
            void write(Change change, Writer out) {
                Flushed c = (Flushed) change;
                out.varint(c.regionId());
                out.varint(c.sequence());
            }

            @Override
            Change read(Varints.Reader in) {
                return new Flushed(in.readInt(Integer.MAX_VALUE, "region id"), in.readLong());
            }
        },
        NEXT_FILE(6) {
            @Override
            void write(Change change, Writer out) {
                out.varint(((NextFile) change).fileNumber());
            }

            @Override
            Change read(Varints.Reader in) {
                return new NextFile(in.readLong());
            }
        },
        NEXT_TABLE(7) {
            @Override
            void write(Change change, Writer out) {
                out.varint(((NextTable) change).tableId());
            }

            @Override
            Change read(Varints.Reader in) {
                return new NextTable(in.readInt(Integer.MAX_VALUE, "table id"));
            }
        },
        TABLE(8) {
            @Override
            void write(Change change, Writer out) {
                Table c = (Table) change;
                writeTable(c.tableId(), c.descriptor(), out);
            }

            @Override
            Change read(Varints.Reader in) {
                int tableId = in.readInt(Integer.MAX_VALUE, "table id");
                return new Table(tableId, readDescriptor(in));
            }
        },
        REGION(9) {
            @Override
            void write(Change change, Writer out) {
                AddRegion c = (AddRegion) change;
                out.varint(c.tableId());
                out.varint(c.regionId());
                out.bytes(c.start());
                out.bytes(c.end());
                out.varint(c.flushedSequence());
            }

            @Override
            Change read(Varints.Reader in) {
                return new AddRegion(in.readInt(Integer.MAX_VALUE, "table id"),
                        in.readInt(Integer.MAX_VALUE, "region id"), bytes(in), bytes(in), in.readLong());
            }
        },
        DROP_REGION(10) {
            @Override
            void write(Change change, Writer out) {
                out.varint(((DropRegion) change).regionId());
            }

            @Override
            Change read(Varints.Reader in) {
                return new DropRegion(in.readInt(Integer.MAX_VALUE, "region id"));
            }
        },
        ALTER_TABLE(11) {
            @Override
            void write(Change change, Writer out) {
                AlterTable c = (AlterTable) change;
                writeTable(c.tableId(), c.descriptor(), out);
            }

            @Override
            Change read(Varints.Reader in) {
                int tableId = in.readInt(Integer.MAX_VALUE, "table id");
                return new AlterTable(tableId, readDescriptor(in));
            }
        },
        TABLE_STATE(12) {
            @Override
            void write(Change change, Writer out) {
                TableState c = (TableState) change;
                out.varint(c.tableId());
                out.varint(c.disabled() ? 1 : 0);
            }

            @Override
            Change read(Varints.Reader in) {
                int tableId = in.readInt(Integer.MAX_VALUE, "table id");
                return new TableState(tableId, in.readInt(1, "disabled") == 1);
            }
        };

        final int code;

        Tag(int code) {
            this.code = code;
        }

        abstract void write(Change change, Writer out);

        abstract Change read(Varints.Reader in);

        static Tag of(int code) {
            for (Tag tag : values()) {
                if (tag.code == code) {
                    return tag;
                }
            }
            throw new Varints.Damage("unknown manifest tag " + code);
        }
    }

    private static void writeTable(int tableId, TableDescriptor descriptor, Writer out) {
        out.varint(tableId);
        out.string(descriptor.name());
        out.varint(descriptor.families().size());
        for (FamilyDescriptor f : descriptor.families()) {
            out.string(f.name());
            out.varint(f.maxVersions());
            out.varint(f.timeToLive().toMillis());
            out.u8(f.bloomCode());
            out.varint(f.blockSize());
            out.u8(f.compression().ordinal());
        }
    }

    private static TableDescriptor readDescriptor(Varints.Reader in) {
        String name = string(in);
        int count = in.readInt(10_000, "family count");
        List<FamilyDescriptor> families = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String family = string(in);
            int versions = in.readInt(Integer.MAX_VALUE, "max versions");
            long ttl = in.readLong();
            int bloom = u8(in);
            int bloomBits;
            try {
                bloomBits = FamilyDescriptor.bloomBitsOf(bloom);
            } catch (IllegalArgumentException e) {
                throw new Varints.Damage(e.getMessage());
            }
            int blockSize = in.readInt(Integer.MAX_VALUE, "block size");
            int compression = u8(in);
            if (compression >= Compression.values().length) {
                throw new Varints.Damage("unknown compression " + compression);
            }
            families.add(new FamilyDescriptor(family, versions, Duration.ofMillis(ttl), bloom != 0, blockSize,
                    Compression.values()[compression], bloomBits));
        }
        return new TableDescriptor(name, families);
    }

    /** The record payload of this edit. */
    byte[] encode() {
        Writer out = new Writer();
        for (Change change : changes) {
            out.u8(change.tag().code);
            change.tag().write(change, out);
        }
        return java.util.Arrays.copyOf(out.buffer.bytes, out.buffer.length);
    }

    /** Decodes a payload whose checksum passed; throws {@link Varints.Damage} when it is malformed. */
    static ManifestEdit decode(MemorySegment payload) {
        Varints.Reader in = new Varints.Reader(payload, 0, payload.byteSize());
        List<Change> changes = new ArrayList<>();
        while (in.hasMore()) {
            changes.add(Tag.of(u8(in)).read(in));
        }
        return new ManifestEdit(changes);
    }

    private static int u8(Varints.Reader in) {
        long at = in.take(1, "byte");
        return Byte.toUnsignedInt(in.data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at));
    }

    private static byte[] bytes(Varints.Reader in) {
        int length = in.readInt(1 << 24, "byte string length");
        long at = in.take(length, "byte string");
        return in.data.asSlice(at, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    private static String string(Varints.Reader in) {
        return new String(bytes(in), StandardCharsets.UTF_8);
    }

    /** Encoders over a growable buffer. */
    static final class Writer {
        final GrowableBytes buffer = new GrowableBytes(256);

        void varint(long value) {
            buffer.varint(value);
        }

        void u8(int value) {
            buffer.bytes(new byte[] {(byte) value}, 0, 1);
        }

        void bytes(byte[] value) {
            buffer.varint(value.length);
            buffer.bytes(value, 0, value.length);
        }

        void string(String value) {
            bytes(value.getBytes(StandardCharsets.UTF_8));
        }
    }
}
