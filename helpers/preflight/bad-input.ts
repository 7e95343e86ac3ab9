/** What the user gave cannot work (an image that is not there, a repository we may not push to, ...): one line, exit 2. */
export class BadInputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BadInputError';
  }
}
