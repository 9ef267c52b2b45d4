package io.lakesink.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.BlockBlobItem;
import com.azure.storage.blob.models.BlockListType;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes whole blobs, atomically (a block blob is visible only once fully written), optionally
 * only if absent.
 *
 * <p>Put-if-absent is a PUT with {@code If-None-Match: *}: the loser of a race gets 409
 * BlobAlreadyExists or 412 ConditionNotMet, reported as {@link FileAlreadyExistsException}, which
 * is how Kernel learns it lost a commit race. One case is ambiguous: the SDK retried the PUT after
 * a timeout or 5xx whose request had in fact landed, and the retry then finds "our" blob. Only when
 * the call took more than one attempt, the blob is read back: same bytes (or, for a block list,
 * the same block ids, which are unique to this upload) means the write succeeded.
 */
final class BlobWriter {
  private final BlockBlobClient blob;
  private final String path;
  private final AzureErrors errors;

  BlobWriter(BlockBlobClient blob, String path, AzureErrors errors) {
    this.blob = blob;
    this.path = path;
    this.errors = errors;
  }

  /**
   * One PUT of {@code content}.
   *
   * @return the service's answer (ETag, time), or null when an ambiguous retry was found to have
   *     landed by reading the blob back
   */
  BlockBlobItem put(byte[] content, boolean overwrite) throws IOException {
    BlockBlobSimpleUploadOptions options =
        new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(content))
            .setRequestConditions(conditions(overwrite));
    AtomicInteger attempts = new AtomicInteger();
    try {
      return blob.uploadWithResponse(options, null, AttemptCounter.context(attempts)).getValue();
    } catch (BlobStorageException e) {
      if (!overwrite && AzureErrors.isAlreadyExists(e)) {
        if (attempts.get() > 1 && Arrays.equals(readBack(), content)) {
          return null;
        }
        throw alreadyExists();
      }
      throw errors.translate("write", path, e);
    } catch (RuntimeException e) {
      throw errors.translate("write", path, e);
    }
  }

  /** Uploads one block of a multi-block blob; invisible until {@link #commit}. */
  void stageBlock(String blockId, byte[] data, int length) throws IOException {
    try {
      // The buffer is reused only after this call returns, retries included.
      blob.stageBlock(blockId, BinaryData.fromByteBuffer(ByteBuffer.wrap(data, 0, length)));
    } catch (RuntimeException e) {
      throw errors.translate("write", path, e);
    }
  }

  /** Makes the staged blocks the blob's content, in one atomic step; returns as {@link #put} does. */
  BlockBlobItem commit(List<String> blockIds, boolean overwrite) throws IOException {
    BlockBlobCommitBlockListOptions options =
        new BlockBlobCommitBlockListOptions(blockIds).setRequestConditions(conditions(overwrite));
    AtomicInteger attempts = new AtomicInteger();
    try {
      return blob.commitBlockListWithResponse(options, null, AttemptCounter.context(attempts)).getValue();
    } catch (BlobStorageException e) {
      if (!overwrite && AzureErrors.isAlreadyExists(e)) {
        if (attempts.get() > 1 && committedBlockIds().equals(blockIds)) {
          return null;
        }
        throw alreadyExists();
      }
      throw errors.translate("write", path, e);
    } catch (RuntimeException e) {
      throw errors.translate("write", path, e);
    }
  }

  private static BlobRequestConditions conditions(boolean overwrite) {
    return overwrite ? null : new BlobRequestConditions().setIfNoneMatch("*");
  }

  private FileAlreadyExistsException alreadyExists() {
    return new FileAlreadyExistsException(path, null, "already exists (put-if-absent lost)");
  }

  private byte[] readBack() throws IOException {
    try {
      return blob.downloadContent().toBytes();
    } catch (RuntimeException e) {
      throw errors.translate("read back", path, e);
    }
  }

  private List<String> committedBlockIds() throws IOException {
    try {
      return blob.listBlocks(BlockListType.COMMITTED).getCommittedBlocks().stream()
          .map(b -> b.getName())
          .toList();
    } catch (RuntimeException e) {
      throw errors.translate("read back", path, e);
    }
  }
}
