// `/`: a server-rendered page whose data comes from a server load (the same every time, so the benchmark can check
// every answer byte for byte).
export function load() {
  return {
    features: [
      'server-side rendering',
      'form actions with progressive enhancement',
      'cookies',
      'streamed data',
      'endpoints of every method',
      'WebSockets beside SvelteKit',
    ],
  };
}
