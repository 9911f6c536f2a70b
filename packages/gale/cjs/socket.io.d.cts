// The old `gale/socket.io` subpath moved to its own package (see its message); nothing is exported here.
export {};
