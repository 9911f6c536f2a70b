// Public entry of @gale-http/otel: OpenTelemetry HTTP server spans for Gale, from gale's diagnostics_channel tracing.
/**
 * OpenTelemetry instrumentation for Gale (`GaleInstrumentation`): a SERVER span per request with the stable HTTP
 * semantic-convention attributes, made from gale's `gale.request` TracingChannel.
 *
 * @example
 * import { registerInstrumentations } from '@opentelemetry/instrumentation';
 * import { GaleInstrumentation } from '@gale-http/otel';
 * registerInstrumentations({ instrumentations: [new GaleInstrumentation()] });
 *
 * @module @gale-http/otel
 */
export { normalMethod, spanName, startAttributes } from './attributes.js';
export { GaleInstrumentation, type GaleInstrumentationConfig } from './instrumentation.js';
