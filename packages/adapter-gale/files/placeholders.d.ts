// Types of the placeholders the adapter fills in when it bundles files/ (for type-checking only; not shipped).
declare const ENV_PREFIX: string;
declare const ADAPTER_GALE_PRECOMPRESS: boolean;
declare const ADAPTER_GALE_WORKERS: number | 'auto' | null;
/** The SvelteKit major the app was built with: the file-serving rules follow that generation's adapter-node. */
declare const ADAPTER_GALE_KIT: 2 | 3;
/** SvelteKit 3's `paths.origin`, or null. */
declare const ADAPTER_GALE_ORIGIN: string | null;
declare const ADAPTER_GALE_STATIC: {
  immutable: { prefix: string; dir: string } | null;
  mounts: [url: string, dir: string, name: string][];
  files: [pathname: string, file: string][];
  prerendered: string[];
};

declare module 'SERVER' {
  /** SvelteKit's server: `new Server(manifest)` under SvelteKit 2, `builder.generateServerInstance`'s under 3. */
  export const server: import('@sveltejs/kit').Server;
}
declare module 'SETUP' {
  const setup: ((app: import('gale').App) => void | Promise<void>) | undefined;
  export default setup;
}
