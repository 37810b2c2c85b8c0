/**
 * Byte-level helpers shared by the codecs of this module: the 16-byte IP address field and the IP version that
 * drives its reading, bounds checks.
 */
package io.vibridge.cm.wire;
