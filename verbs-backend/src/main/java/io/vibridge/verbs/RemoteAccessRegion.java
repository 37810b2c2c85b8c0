package io.vibridge.verbs;

/** A handler-backed region: an rkey and an address range with no local memory. */
public interface RemoteAccessRegion extends AutoCloseable {
    long address();

    long length();

    int rkey();

    @Override
    void close();
}
