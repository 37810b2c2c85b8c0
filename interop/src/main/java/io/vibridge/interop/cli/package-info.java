/** The picocli commands, their shared options (device, time budget) and the watchdog. */
package io.vibridge.interop.cli;
