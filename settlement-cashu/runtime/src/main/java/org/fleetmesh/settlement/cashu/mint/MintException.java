package org.fleetmesh.settlement.cashu.mint;

/**
 * A mint call that did not return the answer asked for.
 *
 * <p>{@link #definite()} is what a wallet needs to know: true when the mint answered with a well-formed
 * error ({@code 4xx} and {@code {"detail","code"}}, NUT-00 "Errors"), so the request had no effect and
 * inputs it carried are still the wallet's; false when the outcome is unknown (I/O error, timeout, 5xx,
 * a body that does not parse, an answer too large), so the wallet must find out with NUT-07 checkstate
 * or NUT-09 restore before it reuses the inputs or the outputs.
 */
public class MintException extends RuntimeException {
    /** {@link #code()} when the mint gave no error code. */
    public static final int NO_CODE = 0;
    /** {@link #httpStatus()} when no HTTP answer arrived. */
    public static final int NO_STATUS = 0;

    private final int httpStatus;
    private final int code;
    private final String detail;
    private final boolean definite;

    public MintException(String message, int httpStatus, int code, String detail, boolean definite, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.code = code;
        this.detail = detail;
        this.definite = definite;
    }

    /** The mint refused the request with a well-formed error: nothing happened. */
    static MintException rejected(String call, int httpStatus, int code, String detail) {
        String known = ErrorCodes.describe(code);
        return new MintException(call + ": mint refused (HTTP " + httpStatus + ", code " + code
                + (known == null ? "" : " " + known) + "): " + detail, httpStatus, code, detail, true, null);
    }

    /** The outcome is unknown; {@code code}/{@code detail} are kept when a 5xx still carried them. */
    static MintException unknown(String call, String reason, int httpStatus, int code, String detail, Throwable cause) {
        return new MintException(call + ": outcome unknown: " + reason, httpStatus, code, detail, false, cause);
    }

    /** The mint's error code (see {@link ErrorCodes}), or {@link #NO_CODE}. */
    public int code() {
        return code;
    }

    /** The mint's {@code detail} text, or null when it sent none. */
    public String detail() {
        return detail;
    }

    /** The HTTP status of the answer, or {@link #NO_STATUS} when none arrived. */
    public int httpStatus() {
        return httpStatus;
    }

    /** True when the mint answered with a well-formed error, so the request had no effect. */
    public boolean definite() {
        return definite;
    }
}
