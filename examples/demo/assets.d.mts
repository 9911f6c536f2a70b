// Types for assets.mjs (the demo's static files, shared with bench/ and tests/).
export declare const publicDir: string;
export declare const prerenderedDir: string;
export declare const LARGE_SIZE: number;
export declare function largeBytes(): Buffer;
export declare function ensureLargeFile(): string;
