package io.vibridge.iwarp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vibridge.iwarp.engine.SiwSegments.Segment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committed extracts in siw/segments/ are the pcaps' TCP payload: parsed here from the pcap records
 * (classic pcap, Ethernet with zero MACs as tcpdump -i lo writes it, IPv4, TCP), they must equal the extract
 * segment for segment. Runs where the pcaps are at hand (they are not committed: .gitignore has *.pcap);
 * skipped elsewhere. Both directions must also start as MPA does: Request, then Reply.
 */
class SiwSegmentsTest {

    @ParameterizedTest
    @ValueSource(strings = {"siw-rping-crc-on", "siw-rping-crc-off", "siw-rping-p2p", "siw-rping-65000-crc-on",
        "siw-rping-65000-lo64k-crc-on"})
    void extractIsThePcapsPayload(String name) {
        List<Segment> committed = SiwSegments.load(name);
        assertThat(committed.getFirst().fromClient()).isTrue();
        assertThat(new String(committed.getFirst().payload(), 0, 16, StandardCharsets.US_ASCII))
                .isEqualTo("MPA ID Req Frame");
        assertThat(committed.stream().filter(s -> !s.fromClient()).findFirst().orElseThrow().payload())
                .startsWith("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII));
        byte[] pcap = SiwSegments.pcap(name);
        assumeTrue(pcap != null, name + ".pcap is not on the class path (not committed)");
        assertThat(SiwSegments.parsePcap(pcap)).isEqualTo(committed);
    }
}
