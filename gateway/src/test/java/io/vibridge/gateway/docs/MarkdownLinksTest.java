package io.vibridge.gateway.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The repository's documents stand on their own: every Markdown link names a file of the checkout that
 * exists (and a heading of it, for {@code #anchor}s), and no file sends the reader to the design,
 * specification and note files the project was first built from, which lived outside the repository
 * (their content is docs/ now).
 */
class MarkdownLinksTest {

    private static final Path ROOT = RepositoryRoot.find();

    /** Paths and names of the documents outside the repository. */
    private static final Pattern OUTSIDE = Pattern.compile(
            "(?:\\.\\./)+shared/|/work/" + "shared"
                    + "|\\bshared/(?:spec|notes|seeds|design|DESIGN)\\b"
                    + "|\\bnotes/(?:siw-iwarp-peer|real-rdma-peer-vm|roce-on-udp-sockets|containers-offline)\\.md"
                    + "|\\b(?:DESIGN|VITCP-PROFILE|CM-MAPPING|IB-WIRE-REFERENCE|ARCHITECTURE-NEXT)\\.md\\b");

    @Test
    void everyMarkdownLinkResolvesInsideTheRepository() {
        MarkdownLinks links = new MarkdownLinks(ROOT);
        assertThat(links.markdownFiles()).as("the walk finds the documents")
                .contains(ROOT.resolve("README.md"), ROOT.resolve("docs/README.md"), ROOT.resolve("CHANGELOG.md"),
                        ROOT.resolve("cm-mapping/IWARP-MAPPING.md"), ROOT.resolve("deploy/README.md"),
                        ROOT.resolve("interop/vm/README.md"));
        assertThat(links.check()).as("broken links").isEmpty();
    }

    @Test
    void noFileNamesTheDocumentsThatLivedOutsideTheRepository() {
        List<String> hits = new ArrayList<>();
        for (Path f : MarkdownLinks.files(ROOT, p -> true)) {
            List<String> lines = MarkdownLinks.textLines(f);
            for (int i = 0; i < lines.size(); i++) {
                if (OUTSIDE.matcher(lines.get(i)).find()) {
                    hits.add(ROOT.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertThat(hits).as("name docs/ instead (docs/README.md maps the old names)").isEmpty();
    }

    @Test
    void brokenLinksAreReportedWithFileAndLine(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.md"), """
                # Title
                ## Second part
                [ok](b.md#section-one), [ok too](#second-part), [missing](c.md), [bad anchor](b.md#nope)
                [outside](../x.md) [absolute](/etc/hosts) [file](file:///etc/hosts) `[code](nope.md)` [web](https://example.org/x.md)
                ```
                [fenced](nope.md)
                ```
                [ref]: d.md
                """);
        Files.writeString(dir.resolve("b.md"), "## Section one\n");
        Files.createDirectories(dir.resolve("target"));
        Files.writeString(dir.resolve("target/skipped.md"), "[x](nowhere.md)\n");

        assertThat(new MarkdownLinks(dir).check()).containsExactly(
                "a.md:3: c.md: no such file",
                "a.md:3: b.md#nope: no heading with anchor #nope in b.md",
                "a.md:4: ../x.md: outside the repository",
                "a.md:4: /etc/hosts: an absolute path: link relative to the file instead",
                "a.md:4: file:///etc/hosts: a link outside the repository (file:)",
                "a.md:8: d.md: no such file");
    }

    @Test
    void repeatedHeadingsGetNumberedAnchors(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("r.md");
        Files.writeString(f, "## Tests\n## Tests\n```\n## Not a heading\n```\n<a name=\"custom\"></a>\n");
        assertThat(new MarkdownLinks(dir).anchorsOf(f)).containsExactlyInAnyOrder("tests", "tests-1", "custom");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            1. Transport and addressing                                            | 1-transport-and-addressing
            3.1 RETH — RDMA Extended Transport Header (16 bytes)                   | 31-reth--rdma-extended-transport-header-16-bytes
            6. rdma_cm (Linux RDMA connection manager) conventions on top of the IB CM | 6-rdma_cm-linux-rdma-connection-manager-conventions-on-top-of-the-ib-cm
            Metrics (admin port 9464, `/metrics`)                                  | metrics-admin-port-9464-metrics
            Wire codecs: `io.vibridge.vitcp.wire` (merged from `README-wire.md`)   | wire-codecs-iovibridgevitcpwire-merged-from-readme-wiremd
            See [the profile](vitcp-profile.md) **now**                            | see-the-profile-now
            """)
    void anchorsFollowGitHubsRules(String heading, String anchor) {
        assertThat(MarkdownLinks.slug(heading)).isEqualTo(anchor);
    }
}
