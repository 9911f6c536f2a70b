// `event.platform` under adapter-gale: Gale's own request and response objects.
import type { Request as GaleRequest, Response as GaleResponse } from 'gale';

declare global {
  namespace App {
    export interface Platform {
      /** Gale's request (`ip`, `cookies`, `headers`, `log`, …). */
      req: GaleRequest;
      /** Gale's response (headers set on it are not sent: SvelteKit's Response is the answer). */
      res: GaleResponse;
    }
  }
}
