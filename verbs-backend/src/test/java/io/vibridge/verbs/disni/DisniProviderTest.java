package io.vibridge.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the DiSNI provider declares without hardware: no capability (DisniProvider.CAPABILITIES says why). */
class DisniProviderTest {
    @Test
    void declaresNoCapability() {
        // in particular no CM_PRIVATE_DATA (empty private data in events), no ANY_SERVICE_ID (0x106xxxx only),
        // no CM_RETRY_CONTROL (maxCmRetries, localAckTimeout, minRnrTimer and pathMtu are not passed to rdma_cm)
        assertThat(DisniProvider.CAPABILITIES).isEmpty();
    }
}
