/**
 * The second CM format (CM-MAPPING §5): librdmacm's IP-addressed REQ private data, whose first 36
 * bytes are the {@link io.vibridge.cm.cma.CmaHeader}.
 */
package io.vibridge.cm.cma;
