// HTTP errors of the Tinker routes: thrown from a handler, turned into a JSON error body with this status
// by the shared error handler (src/server/app.ts reads `statusCode`). Statuses follow what the stock SDK
// does with them (tinker-wire-sdk-0.25.md §1, §4): 400/404/415 are final (never retried by the SDK; 409
// would be retried, so it is not used for permanent errors).
// Not a UserError: the shared handler maps every UserError to 400, these carry their own status.
import { CurriculaError } from '../../core/errors.ts';

export class TinkerHttpError extends CurriculaError {
  override name = 'TinkerHttpError';
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new TinkerHttpError(400, message);
export const notFound = (message: string) => new TinkerHttpError(404, message);
export const unsupportedMediaType = (message: string) => new TinkerHttpError(415, message);
