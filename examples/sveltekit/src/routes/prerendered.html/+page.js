// Written to disk at build time: served by the engine as a file.
export const prerender = true;
