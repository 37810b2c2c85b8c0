package io.vibridge.gateway.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.spi.LocationAwareLogger;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The logger of one connection's objects (its bridge, client channel and InfiniBand side): each line
 * it writes carries the connection's id in the MDC under {@link #KEY}, a field of the JSON log layout,
 * besides the "conn N" its messages start with. The MDC entry is set for that one call and restored
 * at once, so it never leaks to the other connections sharing the event loop; a disabled level costs
 * the one check any logger makes, so the per-packet path pays nothing unless a line is written.
 */
public final class ConnectionLogger extends LegacyAbstractLogger {
    /** The MDC key of the connection id ({@code /connections} lists the same ids). */
    public static final String KEY = "conn";
    private static final String FQCN = ConnectionLogger.class.getName();

    private final Logger delegate;
    private final String id;

    private ConnectionLogger(Logger delegate, long id) {
        this.delegate = delegate;
        this.name = delegate.getName();
        this.id = Long.toString(id);
    }

    /** The logger of {@code owner} for connection {@code id}. */
    public static Logger of(Class<?> owner, long id) {
        return of(LoggerFactory.getLogger(owner), id);
    }

    /** {@code delegate}'s lines for connection {@code id}. */
    static Logger of(Logger delegate, long id) {
        return new ConnectionLogger(delegate, id);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return FQCN;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
            Throwable throwable) {
        String outer = MDC.get(KEY);
        MDC.put(KEY, id);
        try {
            if (delegate instanceof LocationAwareLogger l) {
                l.log(marker, FQCN, level.toInt(), pattern, arguments, throwable);
            } else {
                LoggingEventBuilder b = delegate.makeLoggingEventBuilder(level).setMessage(pattern).setCause(throwable);
                if (marker != null) {
                    b.addMarker(marker);
                }
                for (Object a : arguments == null ? new Object[0] : arguments) {
                    b.addArgument(a);
                }
                b.log();
            }
        } finally {
            if (outer == null) {
                MDC.remove(KEY);
            } else {
                MDC.put(KEY, outer);
            }
        }
    }

    @Override
    public boolean isTraceEnabled() {
        return delegate.isTraceEnabled();
    }

    @Override
    public boolean isDebugEnabled() {
        return delegate.isDebugEnabled();
    }

    @Override
    public boolean isInfoEnabled() {
        return delegate.isInfoEnabled();
    }

    @Override
    public boolean isWarnEnabled() {
        return delegate.isWarnEnabled();
    }

    @Override
    public boolean isErrorEnabled() {
        return delegate.isErrorEnabled();
    }
}
