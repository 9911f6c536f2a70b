// The old `gale/express4` subpath moved to its own package (see its message); nothing is exported here.
export {};
