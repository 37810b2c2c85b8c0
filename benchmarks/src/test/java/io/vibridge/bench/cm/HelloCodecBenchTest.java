package io.vibridge.bench.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.hello.Hello;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each benchmark decodes what its setup encoded, call after call (the buffers are rewound). */
class HelloCodecBenchTest {

    private final HelloCodecBench bench = new HelloCodecBench();

    @BeforeEach
    void setUp() {
        bench.setup();
    }

    @Test
    void decodesTheSameMessagesOnEveryCall() {
        for (int i = 0; i < 2; i++) {
            assertThat(bench.helloEncode()).isEqualTo(Hello.LENGTH);
            assertThat(bench.helloDecode().bufs()).isEqualTo(64);
            assertThat(bench.helloReplyDecode().bufs()).isEqualTo(64);
            assertThat(bench.cmaHeaderDecode().sourcePort()).isEqualTo(40000);
        }
    }
}
