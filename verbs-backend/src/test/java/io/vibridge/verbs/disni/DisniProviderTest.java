package io.vibridge.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.WrOpcode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the DiSNI provider declares and checks without hardware. */
class DisniProviderTest {
    @Test
    void declaresNoCapability() {
        // in particular no CM_PRIVATE_DATA (empty private data in events), no ANY_SERVICE_ID (0x106xxxx only),
        // no CM_RETRY_CONTROL (maxCmRetries, localAckTimeout, minRnrTimer and pathMtu are not passed to rdma_cm)
        assertThat(DisniProvider.CAPABILITIES).isEmpty();
    }

    @Test
    void refusesSendWithInvalidateByName() {
        // DiSNI 2.1 has no IBV_WR_SEND_WITH_INV nor invalidate_rkey; the others are verbs.h's values
        assertThatThrownBy(() -> DisniQueuePair.opcode(WrOpcode.SEND_WITH_INV)).isInstanceOf(VerbsException.class)
                .hasMessage("SEND with Invalidate is not supported by the DiSNI provider");
        assertThat(DisniQueuePair.opcode(WrOpcode.SEND)).isEqualTo(2);
        assertThat(DisniQueuePair.opcode(WrOpcode.RDMA_READ)).isEqualTo(4);
    }

    /** Surefire starts this JVM without the option: the reason names it, not "no usable RDMA device". */
    @Test
    void withoutTheExportTheReasonNamesTheJvmOption() {
        assertThat(DisniProvider.checkJdkAccess())
                .contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED")
                .contains("sun.nio.ch.DirectBuffer");
    }

    /** With the option the launcher passes (deploy/bin/vibridge), the check is satisfied. */
    @Test
    void withTheLaunchersOptionTheCheckPasses() throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(DisniProvider.ADD_EXPORTS.split(" ")));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).isEqualTo("null");
    }

    /** Prints what {@link DisniProvider#checkJdkAccess} says in a JVM started with the launcher's option. */
    static final class Probe {
        public static void main(String[] args) {
            System.out.println(DisniProvider.checkJdkAccess());
        }
    }

    @Test
    void theLauncherPassesTheOption() throws Exception {
        Path launcher = Path.of("..", "deploy", "bin", "vibridge");
        assertThat(new File(launcher.toString())).exists();
        assertThat(Files.readString(launcher)).contains(DisniProvider.ADD_EXPORTS);
    }
}
