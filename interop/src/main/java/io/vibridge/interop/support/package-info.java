/** What every interop program shares: the time budget, failures and the {@code RESULT} line. */
package io.vibridge.interop.support;
