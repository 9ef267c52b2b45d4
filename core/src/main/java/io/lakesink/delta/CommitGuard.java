package io.lakesink.delta;

import java.util.Map;

/**
 * What a table's properties must allow for this writer to commit: checked on every snapshot a
 * commit is based on, the first one and each one a lost race rebases onto. A metadata commit by
 * another process (a hand-off's fence) makes every concurrent commit of ours lose its race, so
 * the rebase re-reads the log and the guard sees the new properties before anything lands.
 */
public interface CommitGuard {
  CommitGuard NONE = new CommitGuard() {
    @Override
    public void check(Map<String, String> tableProperties) {}

    @Override
    public Map<String, String> creationProperties() {
      return Map.of();
    }
  };

  /** @throws io.lakesink.error.TableFailureException when this writer must not commit */
  void check(Map<String, String> tableProperties);

  /** Properties a table this writer creates starts with. */
  Map<String, String> creationProperties();
}
