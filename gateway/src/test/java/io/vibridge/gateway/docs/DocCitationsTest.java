package io.vibridge.gateway.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The sections code and documents cite exist: a numbered citation such as {@code VITCP-PROFILE §9.8}
 * names a heading with that number in the docs/ page docs/README.md maps the name to, and a design
 * citation a section (or a paragraph's lead words) of docs/design.md. Renumbering a page without
 * updating its citations fails here.
 */
class DocCitationsTest {

    private static final Path ROOT = RepositoryRoot.find();
    private static final Map<String, String> PAGES = Map.of(
            "VITCP-PROFILE", "docs/vitcp-profile.md",
            "CM-MAPPING", "docs/cm-mapping.md",
            "IB-WIRE-REFERENCE", "docs/ib-wire-reference.md",
            "REF", "docs/ib-wire-reference.md");
    private static final Pattern NUMBERED =
            Pattern.compile("\\b(VITCP-PROFILE|CM-MAPPING|IB-WIRE-REFERENCE|REF) §(\\d+(?:\\.\\d+)*)");
    private static final Pattern NAMED = Pattern.compile("\\b(?:DESIGN|docs/design\\.md) \"([^\"<>]+)\"");
    private static final Pattern SECTION_NUMBER = Pattern.compile("^#{2,4} (\\d+(?:\\.\\d+)*)\\.? ");

    @Test
    void numberedCitationsNameExistingSections() throws IOException {
        Map<String, Set<String>> numbers = new HashMap<>();
        for (String page : PAGES.values()) {
            numbers.put(page, sectionNumbers(page));
        }
        List<Citation> citations = citations(NUMBERED);
        assertThat(citations).as("citations found").hasSizeGreaterThan(100);
        List<String> missing = new ArrayList<>();
        for (Citation c : citations) {
            String page = PAGES.get(c.group(1));
            if (!numbers.get(page).contains(c.group(2))) {
                missing.add(c.where() + ": " + c.group(1) + " §" + c.group(2) + " is no section of " + page);
            }
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void designCitationsNameExistingSections() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("docs/design.md"), StandardCharsets.UTF_8);
        List<Citation> citations = citations(NAMED);
        assertThat(citations).as("citations found").isNotEmpty();
        List<String> missing = new ArrayList<>();
        for (Citation c : citations) {
            String name = c.group(1);
            boolean exists = lines.stream().anyMatch(l -> l.matches("^#{2,4} " + Pattern.quote(name) + ".*")
                    || l.startsWith(name + ":"));
            if (!exists) {
                missing.add(c.where() + ": no section \"" + name + "\" in docs/design.md");
            }
        }
        assertThat(missing).isEmpty();
    }

    /** One citation: where it is, and the pattern's groups. */
    private record Citation(String where, List<String> groups) {
        String group(int i) {
            return groups.get(i - 1);
        }
    }

    /** Every match of {@code pattern} in the repository's text files, with file and line. */
    private static List<Citation> citations(Pattern pattern) {
        List<Citation> out = new ArrayList<>();
        for (Path f : MarkdownLinks.files(ROOT, p -> true)) {
            List<String> lines = MarkdownLinks.textLines(f);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = pattern.matcher(lines.get(i));
                while (m.find()) {
                    List<String> groups = new ArrayList<>();
                    for (int g = 1; g <= m.groupCount(); g++) {
                        groups.add(m.group(g));
                    }
                    out.add(new Citation(ROOT.relativize(f) + ":" + (i + 1), groups));
                }
            }
        }
        return out;
    }

    private static Set<String> sectionNumbers(String page) throws IOException {
        Set<String> numbers = new HashSet<>();
        for (String line : Files.readAllLines(ROOT.resolve(page), StandardCharsets.UTF_8)) {
            Matcher m = SECTION_NUMBER.matcher(line);
            if (m.find()) {
                numbers.add(m.group(1));
            }
        }
        return numbers;
    }
}
