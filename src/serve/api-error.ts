/**
 * Errors in OpenAI's wire shape: `{"error": {"message", "type", "param", "code"}}` with the HTTP
 * status the official API uses for the case (400 invalid_request_error, 401 authentication_error,
 * 404 model_not_found / not_found_error, 500 server_error), so the `openai` client raises its
 * matching error class (BadRequestError, AuthenticationError, NotFoundError...).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  body(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** Anything thrown while serving, as an ApiError (unexpected errors become 500s). */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  return new ApiError(500, `internal error: ${e instanceof Error ? e.message : String(e)}`, "server_error");
}
