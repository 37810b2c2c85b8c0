package io.vibridge.cm.cma;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.testutil.Addresses;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class CmaHeaderPropertiesTest {

    @Provide
    Arbitrary<InetAddress[]> pairs() {
        return Addresses.samePairs();
    }

    @Property
    void roundTrips(@ForAll @IntRange(min = 0, max = 0xFFFF) int port, @ForAll("pairs") InetAddress[] ips,
            @ForAll @Size(max = 56) byte[] userData) {
        CmaHeader header = new CmaHeader(port, ips[0], ips[1]);
        assertThat(CmaHeader.fromBytes(header.toBytes())).isEqualTo(header);
        byte[] pd = header.toPrivateData(userData);
        ByteBuffer buf = ByteBuffer.wrap(pd);
        assertThat(CmaHeader.decode(buf)).isEqualTo(header);
        byte[] rest = new byte[buf.remaining()];
        buf.get(rest);
        assertThat(Arrays.copyOf(rest, userData.length)).isEqualTo(userData);
    }

    @Property
    void decodeThrowsOnlyTheDocumentedException(@ForAll @Size(max = 100) byte[] raw) {
        try {
            CmaHeader.fromBytes(raw);
        } catch (CmFormatException expected) {
            assertThat(expected.message()).isEqualTo("CmaHeader");
        }
    }

}
