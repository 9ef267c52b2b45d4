package io.lakesink.kafka.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** Debezium-shaped Avro schemas and Confluent wire-format records for tests. */
public final class AvroRecords {
  private AvroRecords() {}

  static final String SOURCE = """
      {"type":"record","name":"Source","namespace":"io.debezium.connector.postgresql","fields":[
        {"name":"version","type":"string"},
        {"name":"connector","type":"string"},
        {"name":"name","type":"string"},
        {"name":"ts_ms","type":"long"},
        {"name":"snapshot","type":[{"type":"string","connect.version":1,
          "connect.parameters":{"allowed":"true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"},
          "connect.default":"false","connect.name":"io.debezium.data.Enum"},"null"],"default":"false"},
        {"name":"db","type":"string"},
        {"name":"schema","type":"string"},
        {"name":"table","type":"string"}],
       "connect.name":"io.debezium.connector.postgresql.Source"}""";

  /** A schema from a test resource under {@code /avro/}. */
  public static Schema resource(String name) {
    try (InputStream in = AvroRecords.class.getResourceAsStream("/avro/" + name)) {
      return new Schema.Parser().parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Debezium's envelope around a row schema, as its Avro converter writes it. */
  public static Schema envelope(Schema value, boolean optionalSource) {
    String ns = value.getNamespace();
    String json = """
        {"type":"record","name":"Envelope","namespace":"%s","fields":[
          {"name":"before","type":["null",%s],"default":null},
          {"name":"after","type":["null","%s"],"default":null},
          {"name":"source","type":%s},
          {"name":"transaction","type":["null",{"type":"record","name":"block","namespace":"event","fields":[
            {"name":"id","type":"string"},{"name":"total_order","type":"long"},{"name":"data_collection_order","type":"long"}],
            "connect.version":1,"connect.name":"event.block"}],"default":null},
          {"name":"op","type":"string"},
          {"name":"ts_ms","type":["null","long"],"default":null},
          {"name":"ts_us","type":["null","long"],"default":null},
          {"name":"ts_ns","type":["null","long"],"default":null}],
         "connect.version":2,"connect.name":"%s.Envelope"}"""
        .formatted(ns, value.toString(), value.getFullName(), optionalSource ? "[\"null\"," + SOURCE + "]" : SOURCE, ns);
    return new Schema.Parser().parse(json);
  }

  public static GenericData.Record source(Schema envelope, long tsMs) {
    Schema s = AvroRowSchema.unwrapOptional(envelope.getField("source").schema());
    GenericData.Record r = new GenericData.Record(s);
    r.put("version", "3.6.1.Final");
    r.put("connector", "postgresql");
    r.put("name", "db");
    r.put("ts_ms", tsMs);
    r.put("snapshot", "false");
    r.put("db", "inv");
    r.put("schema", "public");
    r.put("table", "t");
    return r;
  }

  /** The Confluent wire format: magic byte 0, the 4-byte big-endian schema id, the Avro binary body. */
  public static byte[] wire(int schemaId, Schema schema, Object datum) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0);
    out.writeBytes(ByteBuffer.allocate(4).putInt(schemaId).array());
    try {
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<>(schema).write(datum, encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** A decimal's unscaled two's-complement bytes, as Avro's bytes decimal holds them. */
  public static ByteBuffer unscaled(String decimal) {
    return ByteBuffer.wrap(new BigDecimal(decimal).unscaledValue().toByteArray());
  }

  public static GenericData.Fixed fixedDecimal(Schema fixed, String decimal) {
    LogicalTypes.Decimal type = (LogicalTypes.Decimal) fixed.getLogicalType();
    return (GenericData.Fixed) new Conversions.DecimalConversion().toFixed(new BigDecimal(decimal), fixed, type);
  }
}
