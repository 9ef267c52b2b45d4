package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md points to a file that exists, and every
 * {@code #anchor} to a heading of its target, with GitHub's rules for a heading's anchor
 * (lowercase, spaces to '-', punctuation dropped, "-1", "-2" … for repeated headings). Moving a
 * section between files is what breaks such links, silently on GitHub.
 */
class DocsLinksTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** {@code [text](target)} or {@code ![alt](target)}; the text may span lines. */
  static final Pattern LINK = Pattern.compile("!?\\[((?:[^\\[\\]]++|\\[[^\\[\\]]*+\\])*+)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.+?)\\s*#*\\s*$");

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path file : markdownFiles()) {
      String text = withoutCode(Files.readString(file));
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String target = m.group(2);
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue; // https:, mailto:, …: not this test's business
        }
        checked++;
        String where = ROOT.relativize(file) + ": " + m.group(0).replaceAll("\\s+", " ");
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        if (!Files.exists(resolved)) {
          broken.add(where + " (no file " + ROOT.relativize(resolved) + ")");
        } else if (anchor != null && !anchors(resolved).contains(anchor)) {
          broken.add(where + " (no heading with anchor #" + anchor + " in " + ROOT.relativize(resolved) + ")");
        }
      }
    }
    assertTrue(checked > 50, "found only " + checked + " relative links: is the link pattern still right?");
    assertEquals(List.of(), broken, "broken links");
  }

  /** The README's short configuration example and the reference's full one load as they are. */
  @Test
  void theConfigurationExamplesLoad() throws IOException {
    Map<String, String> env = Map.of("KAFKA_JAAS", "jaas", "REGISTRY_PASSWORD", "secret", "DATABRICKS_CLIENT_SECRET", "secret");
    for (Path file : List.of(ROOT.resolve("README.md"), ROOT.resolve("docs/configuration.md"))) {
      List<String> examples = fenced(Files.readString(file), "yaml");
      assertEquals(1, examples.size(), file + " shows one configuration example");
      WorkerConfig config = new ConfigLoader(env).parse(examples.get(0), file.getFileName().toString());
      assertTrue(config.subscriptions().size() >= 2, file + ": both modes shown");
    }
  }

  @Test
  void anchorsFollowGitHubsRules() {
    assertEquals("starting-a-configuration-lakesink-init", slug("Starting a configuration: `lakesink init`"));
    assertEquals("kill--9-soak", slug("Kill -9 soak"));
    assertEquals("merge-before-deletion-vectors-copy-on-write", slug("MERGE before deletion vectors (copy-on-write)"));
    assertEquals("what-lands-in-delta", slug("What lands in Delta"));
    assertEquals("setting-up-the-service-principal", slug("Setting up the [service principal](x.md)"));
    assertEquals("snake_case-stays", slug("snake_case stays"));
  }

  static List<Path> markdownFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    return files;
  }

  static final Map<Path, Set<String>> ANCHORS = new HashMap<>();

  /** The anchors GitHub gives the headings of a markdown file (none for other files). */
  static Set<String> anchors(Path file) throws IOException {
    Set<String> cached = ANCHORS.get(file);
    if (cached != null) {
      return cached;
    }
    Set<String> anchors = new LinkedHashSet<>();
    if (file.toString().endsWith(".md") && Files.isRegularFile(file)) {
      Map<String, Integer> seen = new HashMap<>();
      for (String line : withoutCode(Files.readString(file)).split("\n", -1)) {
        Matcher h = HEADING.matcher(line);
        if (h.matches()) {
          String base = slug(h.group(2));
          int n = seen.merge(base, 1, Integer::sum) - 1;
          anchors.add(n == 0 ? base : base + "-" + n);
        }
      }
    }
    ANCHORS.put(file, anchors);
    return anchors;
  }

  /** GitHub's anchor for a heading's text: as rendered, lowercase, punctuation dropped, spaces to '-'. */
  static String slug(String heading) {
    String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link's text only
    text = text.replaceAll("<[^>]+>", ""); // inline HTML
    text = text.toLowerCase(java.util.Locale.ROOT);
    text = text.replaceAll("[^\\p{L}\\p{N}\\p{M}_\\- ]", "");
    return text.replace(' ', '-');
  }

  /** The contents of the text's fenced code blocks of one language. */
  static List<String> fenced(String markdown, String language) {
    List<String> blocks = new ArrayList<>();
    StringBuilder block = null;
    for (String line : markdown.split("\n", -1)) {
      if (block == null && line.strip().equals("```" + language)) {
        block = new StringBuilder();
      } else if (block != null && line.strip().equals("```")) {
        blocks.add(block.toString());
        block = null;
      } else if (block != null) {
        block.append(line).append('\n');
      }
    }
    return blocks;
  }

  /**
   * The text with fenced code blocks blanked (their {@code #} lines are comments, not headings,
   * and their brackets are not links); line breaks are kept.
   */
  static String withoutCode(String markdown) {
    StringBuilder out = new StringBuilder();
    boolean fenced = false;
    for (String line : markdown.split("\n", -1)) {
      if (line.stripLeading().startsWith("```")) {
        fenced = !fenced;
        out.append('\n');
        continue;
      }
      out.append(fenced ? "" : line).append('\n');
    }
    return out.toString();
  }
}
