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
 *   2 DROP_TABLE      tableId varint
 *   3 ADD_FILE        tableId varint, family str, fileNumber varint, fileSize varint,
 *                     entries varint, maxSequence varint, firstKey bytes, lastKey bytes
 *   4 REMOVE_FILE     tableId varint, family str, fileNumber varint
 *   5 FLUSHED         tableId varint, sequence varint   (the table's data up to here is in SSTables)
 *   6 NEXT_FILE       fileNumber varint                 (file numbers below are taken)
 *   7 NEXT_TABLE      tableId varint                    (table ids below are taken)
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

    record AddFile(int tableId, String family, FileMeta file) implements Change {
        public Tag tag() {
            return Tag.ADD_FILE;
        }
    }

    record RemoveFile(int tableId, String family, long fileNumber) implements Change {
        public Tag tag() {
            return Tag.REMOVE_FILE;
        }
    }

    record Flushed(int tableId, long sequence) implements Change {
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

    /** What the manifest records about one SSTable. */
    record FileMeta(long fileNumber, long fileSize, long entries, long maxSequence, byte[] firstKey, byte[] lastKey) {}

    enum Tag {
        CREATE_TABLE(1) {
            @Override
            void write(Change change, Writer out) {
                CreateTable c = (CreateTable) change;
                out.varint(c.tableId());
                out.string(c.descriptor().name());
                out.varint(c.descriptor().families().size());
                for (FamilyDescriptor f : c.descriptor().families()) {
                    out.string(f.name());
                    out.varint(f.maxVersions());
                    out.varint(f.timeToLive().toMillis());
                    out.u8(f.bloomFilter() ? 1 : 0);
                    out.varint(f.blockSize());
                    out.u8(f.compression().ordinal());
                }
            }

            @Override
            Change read(Varints.Reader in) {
                int tableId = in.readInt(Integer.MAX_VALUE, "table id");
                String name = string(in);
                int count = in.readInt(10_000, "family count");
                List<FamilyDescriptor> families = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    String family = string(in);
                    int versions = in.readInt(Integer.MAX_VALUE, "max versions");
                    long ttl = in.readLong();
                    boolean bloom = u8(in) != 0;
                    int blockSize = in.readInt(Integer.MAX_VALUE, "block size");
                    int compression = u8(in);
                    if (compression >= Compression.values().length) {
                        throw new Varints.Damage("unknown compression " + compression);
                    }
                    families.add(new FamilyDescriptor(family, versions, Duration.ofMillis(ttl), bloom, blockSize,
                            Compression.values()[compression]));
                }
                return new CreateTable(tableId, new TableDescriptor(name, families));
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
                out.varint(c.tableId());
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
                int tableId = in.readInt(Integer.MAX_VALUE, "table id");
                String family = string(in);
                FileMeta file = new FileMeta(in.readLong(), in.readLong(), in.readLong(), in.readLong(), bytes(in),
                        bytes(in));
                return new AddFile(tableId, family, file);
            }
        },
        REMOVE_FILE(4) {
            @Override
            void write(Change change, Writer out) {
                RemoveFile c = (RemoveFile) change;
                out.varint(c.tableId());
                out.string(c.family());
                out.varint(c.fileNumber());
            }

            @Override
            Change read(Varints.Reader in) {
                return new RemoveFile(in.readInt(Integer.MAX_VALUE, "table id"), string(in), in.readLong());
            }
        },
        FLUSHED(5) {
            @Override
            void write(Change change, Writer out) {
                Flushed c = (Flushed) change;
                out.varint(c.tableId());
                out.varint(c.sequence());
            }

            @Override
            Change read(Varints.Reader in) {
                return new Flushed(in.readInt(Integer.MAX_VALUE, "table id"), in.readLong());
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
