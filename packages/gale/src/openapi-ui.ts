// `openApiUi()`: a router serving Swagger UI for an app's OpenAPI document, from the swagger-ui-dist package the app
// installs (an optional peer dependency: nothing is fetched from a CDN). The page, its start script and the package's
// files, each a hidden route (not in the document it shows).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ErrorCodes, GaleError, HttpError } from './errors.js';
import { escapeHtml } from './html.js';
import { Router } from './router.js';

/**
 * What `openApiUi()` is given.
 *
 * @example
 * const ui: OpenApiUiOptions = { url: '/openapi.json', title: 'Shop API' };
 */
export interface OpenApiUiOptions {
  /** Where the app serves its OpenAPI document, as the browser fetches it (e.g. `/openapi.json`). */
  readonly url: string;
  /** The page's title (default `API reference`). */
  readonly title?: string;
}

/** The files of swagger-ui-dist the page loads, with their types. */
const FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** swagger-ui-dist's folder, or a GaleError saying to install it. */
function swaggerUiDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
    throw new GaleError(
      ErrorCodes.MISSING_PACKAGE,
      'openApiUi() serves Swagger UI from the swagger-ui-dist package, which is not installed: ' +
        'npm install swagger-ui-dist',
    );
  }
}

/**
 * A router that serves Swagger UI for the OpenAPI document at `url`: mount it where the UI should live. The page's
 * files come from the swagger-ui-dist package (install it: `npm install swagger-ui-dist`; without it this throws
 * `GALE_ERR_MISSING_PACKAGE`), and its start script is a file too, so a `script-src 'self'` Content-Security-Policy
 * allows the page. Its routes are hidden from `app.openapi()`.
 *
 * @example
 * import { gale, openApiUi } from 'gale';
 *
 * const app = gale();
 * app.get('/users/:id', (req) => ({ id: req.params.id }));
 * app.get('/openapi.json', { hidden: true }, () => app.openapi({ info: { title: 'Users API', version: '1.0.0' } }));
 * app.use('/docs', openApiUi({ url: '/openapi.json', title: 'Users API' })); // the UI at /docs
 */
export function openApiUi(options: OpenApiUiOptions): Router {
  if (typeof options?.url !== 'string' || options.url === '') {
    throw new TypeError("openApiUi(options): options.url must name where the document is served, e.g. '/openapi.json'");
  }
  const dir = swaggerUiDir();
  const title = escapeHtml(options.title ?? 'API reference');
  const start =
    `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(options.url)}, dom_id: '#swagger-ui', deepLinking: true, ` +
    'presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], ' +
    "plugins: [SwaggerUIBundle.plugins.DownloadUrl], layout: 'StandaloneLayout' });\n";
  const ui = new Router();
  const hidden = { hidden: true } as const;
  // Absolute links from the mount point: the page is reached both as /docs and /docs/.
  ui.get('/', hidden, (req, res) => {
    const base = escapeHtml(req.baseUrl);
    res.html(
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
        `<title>${title}</title>\n` +
        `<link rel="stylesheet" href="${base}/swagger-ui.css">\n<link rel="stylesheet" href="${base}/index.css">\n` +
        `<link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">\n` +
        `<link rel="icon" type="image/png" href="${base}/favicon-16x16.png" sizes="16x16">\n` +
        '</head>\n<body>\n<div id="swagger-ui"></div>\n' +
        `<script src="${base}/swagger-ui-bundle.js"></script>\n` +
        `<script src="${base}/swagger-ui-standalone-preset.js"></script>\n` +
        `<script src="${base}/swagger-initializer.js"></script>\n</body>\n</html>\n`,
    );
  });
  ui.get('/swagger-initializer.js', hidden, (_req, res) => {
    res.type('text/javascript; charset=utf-8').send(start);
  });
  ui.get('/:file', hidden, (req, res) => {
    const file = req.params.file as string;
    if (!Object.hasOwn(FILES, file)) throw new HttpError(404, 'Not Found');
    res.type(FILES[file] as string).sendFile(join(dir, file));
  });
  return ui;
}
