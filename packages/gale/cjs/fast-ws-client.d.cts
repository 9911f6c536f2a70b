// The old `gale/fast-ws-client` subpath moved to its own package (see its message); nothing is exported here.
export {};
