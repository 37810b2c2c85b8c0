package io.vibridge.gateway.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the links of a repository's Markdown files: every relative link names a file inside the
 * repository that exists, and every {@code file.md#anchor} (or {@code #anchor}) a heading of that file,
 * with GitHub's anchor rules (ATX headings; the repository has no setext ones). Links in fenced code
 * blocks and code spans are not links; http(s) and mailto links are not followed.
 */
final class MarkdownLinks {

    /** Directories never searched: build output, dependencies, git's own. */
    private static final Set<String> SKIPPED = Set.of("target", "node_modules", ".git");

    /** {@code [text](target "title")} and {@code ![alt](target)}; the text may hold one level of brackets. */
    private static final Pattern INLINE = Pattern.compile(
            "!?\\[(?:[^\\]\\[]|\\[[^\\]]*])*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^\\]]+]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(```|~~~)");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

    private final Path root;
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    MarkdownLinks(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** Every Markdown file under the root, build output and dependencies left out. */
    List<Path> markdownFiles() {
        return files(root, p -> p.getFileName().toString().endsWith(".md"));
    }

    /** Every regular file under {@code root} that {@code wanted} accepts; skipped directories are not entered. */
    static List<Path> files(Path root, Predicate<Path> wanted) {
        List<Path> found = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    return SKIPPED.contains(dir.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE
                            : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isRegularFile() && wanted.test(file)) {
                        found.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        found.sort(null);
        return found;
    }

    /** The problems of every Markdown file under the root, one line each ({@code file:line: what}). */
    List<String> check() {
        List<String> problems = new ArrayList<>();
        for (Path f : markdownFiles()) {
            problems.addAll(check(f));
        }
        return problems;
    }

    private List<String> check(Path file) {
        List<String> problems = new ArrayList<>();
        List<String> lines = textLines(file);
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (FENCE.matcher(line).find()) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            String text = CODE_SPAN.matcher(line).replaceAll("");
            List<String> targets = new ArrayList<>();
            Matcher m = INLINE.matcher(text);
            while (m.find()) {
                targets.add(m.group(1));
            }
            Matcher r = REFERENCE.matcher(text);
            if (r.matches()) {
                targets.add(r.group(1));
            }
            for (String target : targets) {
                String problem = problem(file, target);
                if (problem != null) {
                    problems.add(root.relativize(file) + ":" + (i + 1) + ": " + target + ": " + problem);
                }
            }
        }
        return problems;
    }

    private String problem(Path file, String target) {
        String t = target.toLowerCase(Locale.ROOT);
        if (t.startsWith("http://") || t.startsWith("https://") || t.startsWith("mailto:")) {
            return null;
        }
        if (t.matches("^[a-z][a-z0-9+.-]*:.*")) {
            return "a link outside the repository (" + target.substring(0, target.indexOf(':')) + ":)";
        }
        int hash = target.indexOf('#');
        String path = URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved;
        if (path.isEmpty()) {
            resolved = file;
        } else if (path.startsWith("/")) {
            return "an absolute path: link relative to the file instead";
        } else {
            resolved = file.getParent().resolve(path).normalize();
            if (!resolved.startsWith(root)) {
                return "outside the repository";
            }
            if (!Files.exists(resolved)) {
                return "no such file";
            }
        }
        if (anchor != null && resolved.getFileName().toString().endsWith(".md")
                && !anchorsOf(resolved).contains(URLDecoder.decode(anchor, StandardCharsets.UTF_8))) {
            return "no heading with anchor #" + anchor + " in " + root.relativize(resolved);
        }
        return null;
    }

    /** The anchors GitHub gives a Markdown file: one per heading (numbered when repeated), plus HTML anchors. */
    Set<String> anchorsOf(Path file) {
        return anchors.computeIfAbsent(file, f -> {
            Set<String> found = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean fenced = false;
            for (String line : textLines(f)) {
                if (FENCE.matcher(line).find()) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                Matcher h = HEADING.matcher(line);
                if (h.matches()) {
                    String slug = slug(h.group(2));
                    int n = seen.merge(slug, 1, Integer::sum) - 1;
                    found.add(n == 0 ? slug : slug + "-" + n);
                }
                Matcher a = HTML_ANCHOR.matcher(line);
                while (a.find()) {
                    found.add(a.group(1));
                }
            }
            return found;
        });
    }

    /**
     * GitHub's anchor for a heading's text: the text as rendered (link targets, code marks and
     * emphasis dropped), lower case, every character other than a letter, digit, space, hyphen or
     * underscore removed, each space a hyphen.
     */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1")
                .replace("`", "")
                .replaceAll("(\\*\\*|__|\\*)", "");
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "")
                .replace(' ', '-');
    }

    /** The lines of a text file; none for a binary one (a NUL byte in its first 8 KiB: a capture, an archive). */
    static List<String> textLines(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int i = 0; i < Math.min(bytes.length, 8192); i++) {
            if (bytes[i] == 0) {
                return List.of();
            }
        }
        return new String(bytes, StandardCharsets.UTF_8).lines().toList();
    }
}
