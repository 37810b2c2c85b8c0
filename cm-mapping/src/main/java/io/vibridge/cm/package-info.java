/**
 * The InfiniBand side of the VI/TCP-to-InfiniBand mapping ({@code docs/cm-mapping.md}): what goes into
 * the CM REQ / REP private data and how a VI called discriminator becomes an InfiniBand target.
 *
 * <ul>
 *   <li>{@link io.vibridge.cm.serviceid}: Service ID schemes ({@code iwarp}, {@code sdp},
 *       {@code rdma-cm}) and the reverse mapping for listeners.</li>
 *   <li>{@link io.vibridge.cm.hello}: Hello (REQ private data), HelloReply (REP private data),
 *       the FlowC 0 flow-control header and its credit arithmetic.</li>
 *   <li>{@link io.vibridge.cm.cma}: the 36-byte CMA header of librdmacm's IP addressing.</li>
 *   <li>{@link io.vibridge.cm.route}: the route model and its configuration.</li>
 *   <li>{@link io.vibridge.cm.wire}: byte-level helpers shared by the codecs.</li>
 * </ul>
 *
 * <p>Every decoder reports malformed input with {@link io.vibridge.cm.CmFormatException} only.
 */
package io.vibridge.cm;
