/** Byte-level helpers shared by the codecs of this module (16-byte IP address field, bounds checks). */
package io.vibridge.cm.wire;
