/**
 * rping's server and client (rdma-core librdmacm/examples/rping.c) on the verbs SPI: the 16-byte buffer
 * advertisement, the ping text, the rdma_cm conventions (TCP port space Service ID, CMA header).
 */
package io.vibridge.interop.rping;
