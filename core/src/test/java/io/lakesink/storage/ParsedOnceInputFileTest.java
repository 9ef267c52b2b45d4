package io.lakesink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.delta.kernel.defaults.engine.hadoopio.HadoopInputFile;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Kernel's Parquet reader gets from a local file: a file Kernel takes for a Hadoop file (it
 * then reads with the file's configuration instead of parsing a fresh one for every file opened,
 * Kernel's {@code ParquetIOUtils.parquetConfiguration}), whose configuration holds Hadoop's
 * defaults and is a copy each time. (AzureFileIOContractTest asserts the same of a blob.)
 */
class ParsedOnceInputFileTest {
  @TempDir Path dir;

  @Test
  void parquetReadsLocalFilesWithTheConfigurationParsedOnce() {
    HadoopInputFile file = assertInstanceOf(HadoopInputFile.class, new LocalFileIO().newInputFile("file:" + dir + "/part-0.parquet", 10));
    Configuration one = file.configuration();
    Configuration other = file.configuration();
    assertEquals("file:///", one.get("fs.defaultFS"), "Hadoop's core-default.xml is in it");
    assertNotSame(one, other);
    one.set("parquet.lakesink.test", "set by one reader");
    assertNull(other.get("parquet.lakesink.test"), "a reader's setting stays its own");
  }
}
