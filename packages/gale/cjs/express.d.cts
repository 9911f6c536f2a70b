// The old `gale/express` subpath moved to its own package (see its message); nothing is exported here.
export {};
