// Types of the placeholders the adapter fills in when it bundles files/ (for type-checking only; not shipped).
declare const ENV_PREFIX: string;
declare const ADAPTER_GALE_PRECOMPRESS: boolean;
declare const ADAPTER_GALE_WORKERS: number | 'auto' | null;
declare const ADAPTER_GALE_STATIC: {
  immutable: { prefix: string; dir: string } | null;
  mounts: [url: string, dir: string, name: string][];
  files: [pathname: string, file: string][];
  prerendered: string[];
};

declare module 'SERVER' {
  export { Server } from '@sveltejs/kit';
}
declare module 'MANIFEST' {
  export const manifest: import('@sveltejs/kit').SSRManifest;
}
declare module 'SETUP' {
  const setup: ((app: import('gale').App) => void | Promise<void>) | undefined;
  export default setup;
}
