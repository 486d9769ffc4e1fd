// The dashboard's error with an HTTP status: bad input (400), a missing run (404), missing token (401).
// The server turns it into a JSON error body with that status; the process never crashes on one.
import { UserError } from '../core/errors.ts';

export class DashboardError extends UserError {
  override name = 'DashboardError';
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}
