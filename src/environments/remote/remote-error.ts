// The error of a remote environment's server: unreachable, late, answering an error status, too much, or
// something that is not the protocol. Its message names the request (method and URL) and what went wrong,
// so the episode that ends with it (end 'environment_error', episode.ts) says which server and endpoint.

/** A request to an environment server that failed; `url` and `method` name the request. */
export class RemoteEnvironmentError extends Error {
  override name = 'RemoteEnvironmentError';
  constructor(
    readonly method: string,
    readonly url: string,
    what: string,
    options?: ErrorOptions,
  ) {
    super(`${method} ${url}: ${what}`, options);
  }
}
