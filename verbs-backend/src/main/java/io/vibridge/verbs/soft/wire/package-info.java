/**
 * RoCEv2 packet layer of the software verbs engine: byte-exact codecs for the InfiniBand transport
 * headers (BTH and extension headers), the RoCEv2 ICRC, and the IB CM MADs carried on QP1.
 *
 * <p>Layouts follow {@code docs/ib-wire-reference.md} (cited as "REF §n"), which restates
 * IBTA vol. 1 and Linux rxe / ib_cm. All multi-byte fields are big-endian except the ICRC trailer;
 * every static accessor expects a big-endian {@link java.nio.ByteBuffer} (the default order) and
 * absolute offsets, and never changes the buffer's position or limit.
 *
 * <p>Per-packet classes ({@link io.vibridge.verbs.soft.wire.Bth}, the extension headers,
 * {@link io.vibridge.verbs.soft.wire.PacketWriter},
 * {@link io.vibridge.verbs.soft.wire.Icrc}) allocate nothing. CM messages are immutable records
 * (CM runs a few messages per connection, not per packet). The only exception any decoder throws
 * on bad input is {@link io.vibridge.verbs.soft.wire.MalformedPacketException}.
 */
package io.vibridge.verbs.soft.wire;
