// Types for packages the Express tests load that ship none (express4 is an npm alias of express@4).
declare module 'express4' {
  const express: (() => unknown) & Record<string, unknown>;
  export default express;
}
declare module 'cookie-session' {
  const cookieSession: (options: { secret?: string; keys?: string[]; name?: string }) => unknown;
  export default cookieSession;
}
