/** rping's client role over VI/TCP (the vitcp provider library) through the gateway to an rping server. */
package io.vibridge.interop.virping;
