package io.vibridge.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/testing-with-vibridge.md shows the example project's code as it is: each block after a
 * {@code <!-- file: PATH -->} line is that whole file, each after {@code <!-- excerpt: PATH -->} a part of it.
 */
class ExampleInDocsTest {
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static final Path DOC = ROOT.resolve("docs/testing-with-vibridge.md");
    static final Pattern BLOCK = Pattern.compile("<!-- (file|excerpt): (\\S+) -->\\n```[a-z]*\\n(.*?)```", Pattern.DOTALL);

    record Shown(String kind, String path, String code) {
    }

    static List<Shown> shown(String markdown) {
        List<Shown> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(markdown);
        while (m.find()) {
            out.add(new Shown(m.group(1), m.group(2), m.group(3)));
        }
        return out;
    }

    @Test
    void theDocsShowTheExampleAsItIs() throws IOException {
        List<Shown> blocks = shown(Files.readString(DOC));
        assertThat(blocks).extracting(Shown::path).contains("examples/testcontainers/pom.xml",
                "examples/testcontainers/src/test/java/com/example/vibridge/GatewayEchoTest.java");
        for (Shown b : blocks) {
            String source = Files.readString(ROOT.resolve(b.path()));
            if (b.kind().equals("file")) {
                assertThat(b.code()).as("%s, whole, in %s", b.path(), DOC.getFileName()).isEqualTo(source);
            } else {
                assertThat(source).as("%s holds the excerpt shown in %s", b.path(), DOC.getFileName()).contains(b.code());
            }
        }
    }

    /** The comparison itself: a changed line is found. */
    @Test
    void aBlockThatDiffersIsFound() {
        List<Shown> b = shown("<!-- file: x.java -->\n```java\nclass X {}\n```\n");
        assertThat(b).containsExactly(new Shown("file", "x.java", "class X {}\n"));
        assertThat(b.getFirst().code()).isNotEqualTo("class X { }\n");
    }
}
