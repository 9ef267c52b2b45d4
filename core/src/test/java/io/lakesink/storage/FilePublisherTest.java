package io.lakesink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilePublisherTest {
  @TempDir Path dir;
  private final FilePublisher publisher = new FilePublisher(FilePublisher.Mode.HARD_LINK);

  /**
   * On NFS a LINK whose reply was lost is retransmitted and answers EEXIST although the first
   * request made the link. This is the state it leaves: the target is already our file.
   */
  @Test
  void aLinkReportedAsExistingButMadeByUsIsAWin() throws IOException {
    Path temp = Files.writeString(dir.resolve(".00000000000000000001.json.a.tmp"), "ours\n");
    Path target = dir.resolve("00000000000000000001.json");
    Files.createLink(target, temp);

    publisher.publishNew(temp, target);

    assertEquals("ours\n", Files.readString(target));
    assertFalse(Files.exists(temp));
  }

  @Test
  void aVersionTakenByAnotherFileIsLost() throws IOException {
    Path target = Files.writeString(dir.resolve("00000000000000000001.json"), "theirs\n");
    Path temp = Files.writeString(dir.resolve(".00000000000000000001.json.b.tmp"), "ours\n");

    assertThrows(FileAlreadyExistsException.class, () -> publisher.publishNew(temp, target));

    assertEquals("theirs\n", Files.readString(target));
    assertFalse(Files.exists(temp));
  }
}
